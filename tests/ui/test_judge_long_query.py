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


def pool() -> pl.DataFrame:
    # A short query first: the long one is reached with a key, as in a sitting, not drawn at mount.
    return pl.DataFrame(
        [
            {"query_id": q, "query": text, "doc_id": f"{q}-d{d}", "text": "x"}
            for q, text in (("q1", "uuid4"), ("q2", QUERY))
            for d in range(3)
        ]
    )


def query_rows_shown(app: GoldsetApp) -> tuple[int, int]:
    """(rows the query area needs at its width, rows it has on screen)."""
    view = app.screen.query_one("#query")
    width = view.content_region.width
    needed = view.get_content_height(view.content_region.size, app.size, width)
    return needed, view.content_region.height


async def test_a_two_line_query_is_shown_whole_at_80_columns() -> None:
    s = JudgingSession(pool(), "alice", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert s.query_id == "q1"
        assert query_rows_shown(app) == (2, 2)  # a short query keeps the two rows it had
        await pilot.press("n")
        await pilot.pause()
        assert s.query_id == "q2"
        needed, shown = query_rows_shown(app)
        assert needed == 3  # the "Query 2/2 q2" line and two of words
        assert shown >= needed, (needed, shown)
        await pilot.press("p")  # and back: the area shrinks again
        await pilot.pause()
        assert s.query_id == "q1" and query_rows_shown(app) == (2, 2)


async def test_a_query_longer_than_the_area_is_cut_with_a_mark() -> None:
    # Past five rows the area's edge cut a 5,000-character query with nothing to say so.
    long = "word " * 1000
    frame = pl.DataFrame(
        [{"query_id": "q1", "query": long, "doc_id": f"d{d}", "text": "x"} for d in range(2)]
    )
    s = JudgingSession(frame, "alice", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        needed, shown = query_rows_shown(app)
        assert shown >= needed  # what is drawn fits: the mark itself is on screen
        text = str(app.screen.query_one("#query").render())
        assert text.rstrip().endswith(f"\u2026 [+{len(long) - 280:,} characters]")


run_async_tests(globals())
