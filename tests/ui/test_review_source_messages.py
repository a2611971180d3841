"""What the store says while the review's `l` switches whose grades are shown reaches the screen,
literally: never stderr under a running app (it garbles the screen, or is lost), never markup.

Before, switching to a labeller with no grades of their own (the consensus then stands in)
printed "the qrels are the adjudicated consensus of ..." and any pending-pairs line to stderr,
and a refusal was shown with its control characters as they were. Planted data:
tests/unit/report/planted.py (alice and bob judged the store; they disagree on g6 d40)."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

from textual.widgets._toast import Toast

from goldset_tui.adjudication.consensus import UMA
from goldset_tui.adjudication.decisions import AdjudicationWriter
from goldset_tui.commands.review import review_screen_for_store
from goldset_tui.errors import InputError
from goldset_tui.ui.app import GoldsetApp

_spec = importlib.util.spec_from_file_location(
    "planted", Path(__file__).parents[1] / "unit" / "report" / "planted.py"
)
planted = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(planted)

# Markup and an escape in a labeller's name: the store's messages quote it.
HOSTILE = "[bold]x[/]\x1b[2J"


def _store(tmp_path: Path) -> Path:
    store = planted.make_store(tmp_path)
    from goldset_tui.store.project import Project

    project = Project.open(store)
    project.import_prior(planted.qrels_frame({("g1", "d01"): 1}), labeller=HOSTILE)
    with AdjudicationWriter(store, "dee", UMA) as writer:
        writer.decide("g6", "d40", 1)  # adjudicated: a labeller without grades gets the consensus
    return store


async def _press(app: GoldsetApp, pilot, key: str) -> None:
    await pilot.press(key)
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


def test_switching_to_a_labeller_without_grades_says_the_consensus_on_the_screen(
    tmp_path, capsys
) -> None:
    store = _store(tmp_path)
    screen = review_screen_for_store(store, "cat", metric=planted.METRIC)
    context = screen.context
    capsys.readouterr()  # what the command said before the screen opened is stderr's to say
    assert context.sources[-2:] == ["cat", "consensus"]
    seen: list[str] = []

    async def drive() -> None:
        app = GoldsetApp(lambda: screen)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            await _press(app, pilot, "l")  # consensus
            while context.source_key != "cat":  # alice, bob, the hostile name, then cat again
                await _press(app, pilot, "l")
            seen.extend(context.report.warnings)
            await _press(app, pilot, "w")
            seen.append(str(app.screen.query_one("#help-guidelines").render()))

    asyncio.run(drive())
    assert capsys.readouterr().err == ""
    note = [w for w in seen[:-1] if "adjudicated consensus of" in w]
    assert len(note) == 1
    # The name as written, its escape made visible: no markup parsed, nothing sent raw.
    assert "[bold]x[/]␛[2J" in note[0] and "\x1b" not in note[0]
    assert "adjudicated consensus of" in seen[-1] and "[bold]x[/]␛[2J" in seen[-1]


def test_a_refused_switch_shows_the_store_message_literally(tmp_path) -> None:
    store = planted.make_store(tmp_path)
    screen = review_screen_for_store(store, "bob", metric=planted.METRIC)
    folder = tmp_path / HOSTILE

    def refuse(key: str | None, metric: str) -> tuple[object, str]:
        raise InputError(folder, f"{HOSTILE} has no relevant grade")

    screen.context.rebuild = refuse  # type: ignore[assignment]
    shown: list[str] = []

    async def drive() -> None:
        app = GoldsetApp(lambda: screen)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            await _press(app, pilot, "l")
            shown.extend(
                Toast(n).render().plain for n in app._notifications if n.severity == "warning"
            )
            assert app.is_running

    asyncio.run(drive())
    (said,) = shown
    assert said.count("[bold]x[/]␛[2J") == 2 and "\x1b" not in said


def test_judging_while_the_labellers_session_is_open_elsewhere_says_so_on_the_screen(
    tmp_path,
) -> None:
    """J from the review, the labeller's journal held by another session: the store's refusal
    (naming the journal, under a folder with markup and an escape in its name) is a notice shown
    literally, and the review stays. Before, the refusal escaped the screen as a crash."""
    import polars as pl

    from goldset_tui.store.project import Project
    from goldset_tui.ui.screens.report import ReportScreen, ReviewContext
    from goldset_tui.ui.widgets.report_judge import judge_hook

    _spec2 = importlib.util.spec_from_file_location(
        "report_ui_data", Path(__file__).parents[1] / "unit" / "report" / "ui_data.py"
    )
    ui_data = importlib.util.module_from_spec(_spec2)
    _spec2.loader.exec_module(ui_data)
    folder = tmp_path / "[bold]x\x1b[2J"  # a folder's name has no "/": no closing tag
    folder.mkdir()
    pool = folder / "pool.csv"
    pool.write_text("query_id,query,doc_id,text\nq01,x,a,b\n")
    project = Project.create(folder / "store", pool_path=pool, pool_sha256="0" * 64)
    docs = ui_data.make_report().topk.get_column("doc_id").unique().sort()
    corpus = pl.DataFrame({"doc_id": docs, "text": docs, "title": docs})
    topics = ui_data.make_topics()
    hook = judge_hook(project, "ana", topics, corpus, tmp_path / "pairs.csv")
    context = ReviewContext(ui_data.make_report(), topics=topics, judge=hook)
    shown: list[str] = []

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("right", "right", "down", "down", "enter", "enter", "J")
            await pilot.pause()
            shown.extend(Toast(n).render().plain for n in app._notifications)
            assert app.is_running and type(app.screen).__name__ == "TopKScreen"

    with project.writer("ana"):  # another session holds ana's journal
        asyncio.run(drive())
    (said,) = [t for t in shown if "cannot judge the missing pairs as ana" in t]
    assert "[bold]x␛[2J" in said and "\x1b" not in said
