"""The judging screen through `goldset judge`'s own path (prepare, make_screen, the real store):
the guidelines open on a labeller's first sitting at the screen even when their only grades were
imported (before, they opened only for a labeller with no judgments at all, so an imported
labeller never saw them), and not on a later sitting; and a store made with --scale 0-4 is graded
0-4, its keys, help and guidelines on that scale."""

from __future__ import annotations

import io
from pathlib import Path

from test_judge_support import run_async_tests

from goldset_tui.cli import main
from goldset_tui.store import Project, sha256_file
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.help import HelpScreen
from goldset_tui.ui.screens.judge import JudgeScreen

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
POOL = SAMPLE / "pool.jsonl"


def rendered(renderable: object, width: int) -> str:
    from rich.console import Console

    console = Console(width=width, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def text_of(app: GoldsetApp, widget_id: str) -> str:
    return str(app.screen.query_one(f"#{widget_id}").render())


async def opens_on_guidelines(store: Path, labeller: str, *, grade: str | None = None) -> bool:
    """Open the screen as ``labeller``; whether the guidelines came up first. ``grade``: a key
    pressed on the judging screen afterwards (a screen judgment), then q."""
    from goldset_tui.commands.judge import make_screen, prepare

    screen = make_screen(prepare(POOL, labeller, store=store))
    async with GoldsetApp(lambda: screen).run_test() as pilot:
        await pilot.pause()
        await pilot.pause()
        shown = isinstance(pilot.app.screen, HelpScreen)
        if shown:
            await pilot.press("escape")
            await pilot.pause()
        assert isinstance(pilot.app.screen, JudgeScreen)
        if grade is not None:
            await pilot.press(grade)
            await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    return shown


async def test_guidelines_open_on_the_first_sitting_after_an_import(tmp_path: Path) -> None:
    store = tmp_path / "store"
    Project.create(store, pool_path=POOL, pool_sha256=sha256_file(POOL))
    qrels = SAMPLE / "judgments" / "bob.qrels"
    assert main(["import", "--store", str(store), "--labeller", "bob", "--human", str(qrels)]) == 0
    assert Project.open(store).judgments("bob").height > 0  # bob has judgments, all imported
    assert await opens_on_guidelines(store, "bob")  # the first sitting: guidelines
    assert await opens_on_guidelines(store, "bob", grade="2")  # opened and left: still first
    assert not await opens_on_guidelines(store, "bob")  # he graded on the screen: not again
    # A labeller new to the store sees them too, as before.
    assert await opens_on_guidelines(store, "cy")


async def test_a_zero_to_four_store_is_graded_zero_to_four(tmp_path: Path) -> None:
    from goldset_tui.commands.judge import make_screen, prepare

    store = tmp_path / "store"
    screen = make_screen(prepare(POOL, "alice", store=store, scale="0-4"))
    async with GoldsetApp(lambda: screen).run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.pause()
        app = pilot.app
        assert isinstance(app.screen, HelpScreen)  # the first sitting
        guidelines = text_of(app, "help-guidelines")
        assert "Grades 0-4:" in guidelines and "4 perfectly relevant." in guidelines
        assert "3 perfectly relevant" not in guidelines  # not the 0-3 store's guidelines
        keys = rendered(app.screen.query_one("#help-keys").content, 60)
        assert "0 1 2 3 4 Grade" in keys and "5 Grade" not in keys
        await pilot.press("escape")
        await pilot.pause()
        assert "4 perfectly relevant" in text_of(app, "scale")
        assert "3 highly relevant" in text_of(app, "scale")
        first = (screen.session.query_id, screen.session.current.doc_id)
        await pilot.press("4")  # a key the 0-3 screen does not take
        await pilot.pause()
        second = (screen.session.query_id, screen.session.current.doc_id)
        assert second != first  # graded and moved on
        await pilot.press("5")  # off this scale: nothing happens
        await pilot.pause()
        assert (screen.session.query_id, screen.session.current.doc_id) == second
        await pilot.press("q")
        await pilot.pause()
    assert Project.open(store).qrels("alice").rows() == [(*first, 4)]


run_async_tests(globals())
