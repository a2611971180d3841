"""Routine messages go to the status line and notices sit at the top: nothing ever covers the
"✓ saved" cell (a 5 s toast used to, after every finished query). Every warning the store raises
on open reaches the screen, a torn journal tail cut on open among them."""

from __future__ import annotations

import json
from pathlib import Path

from save_gates import until
from test_judge_support import MemoryWriter, run_async_tests, tiny_pool
from textual.widgets import Static
from textual.widgets._toast import Toast

from goldset_tui.commands.judge import make_screen, prepare
from goldset_tui.judging import JudgingSession
from goldset_tui.model import Judgment
from goldset_tui.store import Project, now_iso
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.help import HelpScreen
from goldset_tui.ui.screens.judge import JudgeScreen


def status(app: GoldsetApp) -> str:
    return str(app.screen.query_one("#status", Static).content)


def covered(app: GoldsetApp) -> list[Toast]:
    saved = app.screen.query_one("#saved").region
    return [t for t in app.screen.query(Toast) if t.region.overlaps(saved)]


async def test_finishing_a_query_says_so_in_the_status_line_not_over_saved() -> None:
    s = JudgingSession(tiny_pool(2), "ana", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("1", "2")  # the second grade finishes q1
        await pilot.pause()
        assert "Query finished" in status(app)
        assert "saved #" in str(app.screen.query_one("#saved", Static).content)
        assert covered(app) == [] and not list(app.screen.query(Toast))
        await pilot.press("u", "u", "u")  # "Nothing to undo" is routine too
        await pilot.pause()
        assert "Nothing to undo" in status(app) and not list(app.screen.query(Toast))


async def test_an_error_notice_does_not_cover_the_saved_cell() -> None:
    s = JudgingSession(tiny_pool(2), "ana", writer=MemoryWriter(fail=True))
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("1")
        await until(pilot, lambda: bool(list(app.screen.query(Toast))))  # the error is a notice...
        assert covered(app) == []  # ...that leaves "✗ NOT SAVED" in view
        assert "NOT SAVED" in str(app.screen.query_one("#saved", Static).content)


async def test_a_torn_journal_tail_cut_on_open_is_shown(tmp_path: Path) -> None:
    pool = tmp_path / "pool.jsonl"
    pool.write_text(
        "".join(json.dumps(r) + "\n" for r in tiny_pool(2).to_dicts()), encoding="utf-8"
    )
    prepared = prepare(pool, "ana", store=tmp_path / "store")
    project = prepared.project
    with project.writer("ana") as writer:
        writer.record(Judgment("ana", "q1", "q1-d0", 2, now_iso()))
    (journal,) = (tmp_path / "store" / "journal").glob("*.jsonl")
    with journal.open("ab") as fh:
        fh.write(b'{"labeller": "ana", "query_id": "q1", "doc_id": "q1-d1", "gra')  # torn
    screen = make_screen(prepare(pool, "ana", store=tmp_path / "store"))
    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert covered(app) == [] and list(app.screen.query(Toast))  # a notice, not over saved
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        shown = str(app.screen.query_one("#help-guidelines", Static).content)
        # Where the judgments are kept, then the warnings, then the guidelines.
        store_line, rest = shown.split("\n\n", 1)
        assert store_line == f"Your judgments are kept in {tmp_path / 'store'}"
        assert rest.startswith("Warnings when the store opened") and ".torn" in rest
        await pilot.press("escape")
        await pilot.pause()
        assert "1 warning(s) when the store opened" in status(app)
        assert any(".torn" in str(n.message) for n in app._notifications)
    screen.flush()
    assert Project.open(tmp_path / "store").judgments("ana").height == 1


run_async_tests(globals())
