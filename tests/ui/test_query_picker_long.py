"""The query search (/) lists each query in a few lines at most.

A pool whose query ran to thousands of characters (a pasted document, a log line) filled the
whole search list with that one query, wrapped over a hundred lines, and pushed every other
match out of sight; each entry is now cut at a few lines with an ellipsis."""

from __future__ import annotations

import polars as pl
from test_judge_support import MemoryWriter, run_async_tests

from goldset_tui.judging import JudgingSession
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen
from goldset_tui.ui.screens.prompts import QueryPicker

LONG = "long " + "word " * 1000


def pool() -> pl.DataFrame:
    rows = [("q1", LONG), ("q2", "uuid4"), ("q3", "sort not in place")]
    return pl.DataFrame(
        [{"query_id": q, "query": text, "doc_id": f"{q}-d", "text": "x"} for q, text in rows]
    )


async def test_a_very_long_query_takes_a_few_lines_of_the_search_list() -> None:
    s = JudgingSession(pool(), "ana", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("slash")
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, QueryPicker)
        listing = picker.query_one("#picker-list")
        ids = [listing.get_option_at_index(i).id for i in range(listing.option_count)]
        assert ids == ["q1", "q2", "q3"]
        first = listing.get_option_at_index(0).prompt
        assert first.plain.endswith("\u2026") and len(first.plain) < 300, len(first.plain)
        # Every match fits in the list as the dialog shows it at 80x24: nothing to scroll past.
        assert listing.virtual_size.height <= listing.scrollable_content_region.height, (
            listing.virtual_size,
            listing.scrollable_content_region,
        )
        # A query of ordinary length is shown whole.
        assert listing.get_option_at_index(2).prompt.plain.endswith("sort not in place")


run_async_tests(globals())
