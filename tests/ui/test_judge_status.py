"""The status line keeps every count whole at 80 columns once the pace shows, and the saved
indicator beside it is never what gives way (audit: "queries 0/42" was clipped at 80x24)."""

from __future__ import annotations

import polars as pl
import pytest
from test_judge_support import FakeClock, MemoryWriter, run_async_tests

from goldset_tui.judging import JudgingSession
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen
from goldset_tui.ui.widgets.judge_parts import status_line


def big_pool(queries: int = 42, per_query: int = 31) -> pl.DataFrame:
    """The sample pool's shape (42 queries, about 1,300 candidates): four-digit totals."""
    return pl.DataFrame(
        {
            "query_id": [f"q{q:02d}" for q in range(queries) for _ in range(per_query)],
            "query": [f"query {q}" for q in range(queries) for _ in range(per_query)],
            "doc_id": [f"d{d}" for _ in range(queries) for d in range(per_query)],
            "text": ["some text"] * (queries * per_query),
        }
    )


def graded(n: int, step: float = 4.9) -> JudgingSession:
    session = JudgingSession(big_pool(), "alice", writer=MemoryWriter(), clock=FakeClock(step=step))
    for _ in range(n):
        session.grade(1)
    return session


def test_no_limit_gives_every_part_in_words() -> None:
    line = status_line(graded(9)).plain
    parts = line.split(" \u00b7 ")
    assert parts[:3] == ["query 9/31", "queries 0/42", "all 9/1,302 1%"]
    assert parts[3].endswith("/min") and parts[4].endswith(" left")


@pytest.mark.parametrize("width", [76, 63, 60, 50, 40, 30])
def test_every_width_keeps_the_counts_whole(width: int) -> None:
    session = graded(9)
    line = status_line(session, width).plain
    assert len(line) <= width or width < 31
    assert "9/31" in line and "queries 0/42" in line  # the per-query and finished-query counts
    if width >= 63:
        assert "9/1,302" in line and "/min" in line and " left" in line


def test_the_pace_goes_before_the_counts_do() -> None:
    session = graded(9)
    full = status_line(session).plain
    narrower = status_line(session, len(full) - 1).plain
    assert len(narrower) < len(full) and "queries 0/42" in narrower and "all 9/1,302" in narrower


def screen_line(app: GoldsetApp, y: int) -> str:
    """The terminal row ``y`` as drawn, from the app's own compositor."""
    strips = app.screen._compositor.render_strips()
    return "".join(segment.text for segment in strips[y])


async def test_at_80x24_the_drawn_status_line_is_whole() -> None:
    session = JudgingSession(big_pool(), "alice", writer=MemoryWriter(), clock=FakeClock(step=4.9))
    app = GoldsetApp(lambda: JudgeScreen(session, show_guidelines=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"1" * 9, "0")
        await pilot.pause()
        status = app.screen.query_one("#statusbar")
        row = screen_line(app, status.region.y)
        assert session.pace_per_minute() is not None
        assert "queries 0/42" in row and "all 10/1,302 1%" in row and " left" in row
        assert "\u2713 saved #10=0" in row  # beside it, whole
        assert row.rstrip().endswith("saved #10=0")


run_async_tests(globals())
