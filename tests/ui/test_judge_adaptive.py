"""Pilot: `goldset judge --order adaptive` through the judging screen. The keys pressed follow the
hand-traced MaxMean run of tests/unit/judging/test_adaptive_order.py, and the screen never shows
which system returned a candidate or at which rank."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit" / "judging"))

from test_adaptive_order import EXPECTED, TRUTH, pool
from test_judge_support import MemoryWriter, run_async_tests

from goldset_tui.judging import JudgingSession
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen


async def test_adaptive_order_on_the_screen() -> None:
    w = MemoryWriter()
    s = JudgingSession(pool(), "alice", writer=w, order="adaptive")
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in EXPECTED:
            shown = str(pilot.app.screen.query_one("#candidate").render())
            assert s.current.doc_id in shown
            assert "a-weak" not in shown and "b-good" not in shown  # blind
            await pilot.press(str(TRUTH[s.current.doc_id]))
            await pilot.pause()
        assert [j.doc_id for j in w.records] == EXPECTED
        assert s.query_id == "q2"


run_async_tests(globals())
