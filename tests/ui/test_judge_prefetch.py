"""The judging screen loads the next query ahead in a worker, and skipping layout passes never
leaves a line the wrong size: a candidate line that needs two lines gets them, and the document
below moves down."""

from __future__ import annotations

import polars as pl
import pytest
from test_judge_support import MemoryWriter, run_async_tests, tiny_pool

from goldset_tui.judging import JudgingSession
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen


async def test_landing_in_a_query_loads_the_next_one_ahead() -> None:
    s = JudgingSession(tiny_pool(4), "ana", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert s.qi == 0 and s.is_loaded(1)  # q2 is ready before q1 is finished
        assert s._view(1).dup_label is not None  # near-duplicates found ahead too
        await pilot.press("2", "2", "2", "2")  # finishes q1: on into q2
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert s.qi == 1 and s.is_loaded(2)


async def test_the_next_query_is_loaded_only_after_the_new_querys_frame_is_drawn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The worker's Python holds the GIL for a few ms: started inside the key that lands in a new
    # query, it delayed that key's frame. The order of events is recorded on the UI thread.
    s = JudgingSession(tiny_pool(4), "ana", writer=MemoryWriter())
    screen = JudgeScreen(s, show_guidelines=False)
    app = GoldsetApp(lambda: screen)
    order: list[str] = []
    real_display = GoldsetApp._display
    real_preload = JudgeScreen._preload

    def display(self: GoldsetApp, *args: object) -> None:
        order.append("frame")
        real_display(self, *args)  # type: ignore[arg-type]

    def preload(self: JudgeScreen, session: JudgingSession, qi: int) -> object:
        order.append(f"preload q{qi + 1}")
        return real_preload(self, session, qi)

    monkeypatch.setattr(GoldsetApp, "_display", display)
    monkeypatch.setattr(JudgeScreen, "_preload", preload)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("2", "2", "2")
        await pilot.pause()
        order.clear()
        await pilot.press("2")  # finishes q1: on into q2, and q3 is loaded ahead
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert s.qi == 1 and s.is_loaded(2)
        assert "preload q3" in order and "frame" in order[: order.index("preload q3")], order


async def test_a_candidate_line_that_grows_gets_its_lines() -> None:
    rows = [
        {"query_id": "q", "query": "x", "doc_id": "short", "title": "T", "text": "one"},
        {
            "query_id": "q",
            "query": "x",
            "doc_id": "long",
            "title": "A title long enough to need a second line at eighty columns " * 2,
            "text": "two",
        },
    ]
    s = JudgingSession(pl.DataFrame(rows), "ana", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        for _ in range(2):
            candidate, doc = screen.query_one("#candidate"), screen.query_one("#doc")
            lines = 2 if s.current.doc_id == "long" else 1
            assert candidate.content_region.height == lines, s.current.doc_id
            assert doc.region.y == candidate.region.bottom  # nothing drawn over the other
            await pilot.press("j" if s.pos == 0 else "k")
            await pilot.pause()


run_async_tests(globals())
