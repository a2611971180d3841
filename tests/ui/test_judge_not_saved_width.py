"""A long "✗ NOT SAVED: <reason>" at 80 columns (an OS error quoting a long store path) used to
take the whole status bar: the saved cell grew to its text's width, the progress beside it got no
columns at all, and the cell itself ran off the right edge. The NOT SAVED cell stays on screen
(its start whole, cut with an ellipsis), and the progress keeps its least room, cut by whole
parts. Checked on the rows the app's compositor draws, with the real store's failing fsync."""

from __future__ import annotations

from pathlib import Path

import pytest
from save_gates import HeldFsync, store, until
from test_judge_status import graded, screen_line
from test_judge_support import FakeClock, run_async_tests, tiny_pool
from textual.widgets import Static

from goldset_tui.judging import JudgingSession
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen
from goldset_tui.ui.widgets.judge_parts import PROGRESS_LEAST, status_line

LONG_PATH = "/home/labeller/golden/docs-store/journal/" + "very-long-labeller-name-" * 4 + ".jsonl"


async def test_at_80x24_a_long_not_saved_leaves_the_progress_on_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, writer = store(tmp_path)
    fsync = HeldFsync(monkeypatch, OSError(28, "No space left on device", LONG_PATH))
    session = JudgingSession(tiny_pool(), "alice", writer=writer, clock=FakeClock(step=3.0))
    screen = JudgeScreen(session, show_guidelines=False, writer=writer, background=True)
    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("3")
        fsync.open()
        await until(pilot, lambda: "NOT SAVED" in screen.status_bar.saved.plain)
        await pilot.pause()
        # The reason really is longer than the terminal: this is the case being tested.
        assert LONG_PATH in screen.status_bar.saved.plain and screen.status_bar.saved.cell_len > 80
        status, saved = screen.query_one("#status"), screen.query_one("#saved")
        row = screen_line(app, status.region.y)
        # The saved cell is whole on screen, its start kept, its cut said with an ellipsis ...
        assert saved.region.right <= 80
        assert "\u2717 NOT SAVED: grade 3 for #1 of q1: [Errno 28] No space" in row
        assert row.rstrip().endswith("\u2026")
        # ... and the progress still shows, before it: this query's count, whole.
        assert status.region.width >= PROGRESS_LEAST
        assert row.lstrip().startswith("q 0/4")
        assert row.index("q 0/4") < row.index("NOT SAVED")
        # The whole reason is one key away, at the top of ?.
        await pilot.press("question_mark")
        await pilot.pause()
        shown = str(app.screen.query_one("#help-guidelines", Static).content)
        assert shown.startswith("\u2717 NOT SAVED: grade 3 for #1 of q1") and LONG_PATH in shown
    monkeypatch.undo()


def test_narrower_than_the_shortest_progress_drops_whole_parts() -> None:
    session = graded(9)  # 42 queries of 31: "q 9/31 · queries 0/42 · all 1%" is 30 wide
    assert status_line(session, 30).plain == "q 9/31 \u00b7 queries 0/42 \u00b7 all 1%"
    for width in range(21, 30):
        # Never "queries 0/4…", which reads as another number: the part goes whole.
        assert status_line(session, width).plain == "q 9/31 \u00b7 queries 0/42"
    assert status_line(session, 10).plain == "q 9/31"
    assert status_line(session, 5).plain == "q 9/\u2026"  # the first part is cut last, marked


run_async_tests(globals())
