"""A query longer than one line is shown whole on the judging screen.

At 80 columns a 127-character question wraps to two lines; the query area had room for one, so
its end ("... that never returns") was cut without a mark and the labeller graded against half a
query. The words that decide relevance (a negation, a second entity) are often at the end."""

from __future__ import annotations

import polars as pl
from test_judge_support import MemoryWriter, run_async_tests

from goldset_tui.judging import JudgingSession
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen

QUERY = (
    "how do i stop a background thread from running forever in python when it is blocked "
    "waiting on a socket read that never returns"
)


def pool(query: str) -> pl.DataFrame:
    return pl.DataFrame(
        [{"query_id": "q1", "query": query, "doc_id": f"d{d}", "text": "x"} for d in range(3)]
    )


def query_rows_shown(app: GoldsetApp) -> tuple[int, int]:
    """(rows the query area needs at its width, rows it has on screen)."""
    view = app.screen.query_one("#query")
    width = view.content_region.width
    needed = view.get_content_height(view.content_region.size, app.size, width)
    return needed, view.content_region.height


async def test_a_two_line_query_is_shown_whole_at_80_columns() -> None:
    s = JudgingSession(pool(QUERY), "alice", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        needed, shown = query_rows_shown(app)
        assert needed == 3  # the "Query 1/1 q1" line and two of words
        assert shown >= needed, (needed, shown)


async def test_a_short_query_keeps_the_two_rows_it_had() -> None:
    s = JudgingSession(pool("uuid4"), "alice", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert query_rows_shown(app) == (2, 2)


run_async_tests(globals())
