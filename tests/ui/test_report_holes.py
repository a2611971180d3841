"""The review screens keep the holes in view (planted data: tests/unit/report/planted.py): a query
whose relevant grade is missing but whose runs' top 3 hold unjudged documents stays in the failing
lists marked unjudged, and J reaches it; the same for a query one labeller never judged."""

from __future__ import annotations

import asyncio
from pathlib import Path

import polars as pl
from review_support import TO_ALL_LEX, open_failing_list, planted, table_rows, text_of
from textual.screen import Screen
from textual.widgets import DataTable

from goldset_tui.commands.review import review_screen_for_store
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.report import ReportScreen
from goldset_tui.ui.screens.report_summary import ReportSummaryScreen
from goldset_tui.ui.widgets.report_drill import FailuresScreen, TopKScreen


class Judged(Screen[None]):
    def __init__(self, pairs: pl.DataFrame) -> None:
        super().__init__()
        self.pairs = pairs


def _file_context(tmp_path: Path):
    paths = planted.write_files(tmp_path)
    return planted.review_context(
        paths["qrels"],
        *("--strata", str(paths["strata"]), "--topics", str(paths["topics"])),
        runs=planted.both_runs(paths),
    )


def test_queries_without_a_relevant_grade_but_with_holes_are_listed_and_judged(tmp_path) -> None:
    context = _file_context(tmp_path)
    opened: list[pl.DataFrame] = []

    def judge(pairs: pl.DataFrame) -> Screen:
        opened.append(pairs)
        return Judged(pairs)

    context.judge = judge

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            failures = await open_failing_list(pilot)  # lex, the "all" row (ident, para, all)
            rows = table_rows(failures.query_one(DataTable))
            assert [r[0] for r in rows] == ["g1", "g3", "g4"]
            marks = {r[0]: " ".join(r) for r in rows}
            assert "unjudged" in marks["g1"] and "unjudged" in marks["g3"]
            assert "unjudged" not in marks["g4"]
            title = text_of(app, "#drill-title")
            assert "1 failing of 4" in title and "2 unjudged" in title
            await pilot.press("J")
            await pilot.pause()
            assert isinstance(app.screen, Judged)
            assert sorted(opened[0].rows()) == [("g1", "d04"), ("g3", "d06")]
            app.screen.dismiss(None)
            await pilot.pause()
            await pilot.press("enter")  # g1's top 3
            await pilot.pause()
            assert isinstance(app.screen, TopKScreen) and app.screen.query_id == "g1"
            assert "not in the table" in text_of(app, "#drill-title")
            grid = app.screen.query_one(DataTable)
            assert str(grid.get_cell_at((0, 1))) == "[?] d04"
            await pilot.press("J")
            await pilot.pause()
            assert opened[1].rows() == [("g1", "d04")]

    asyncio.run(drive())


def test_a_query_the_labeller_never_judged_is_listed_and_counted(tmp_path) -> None:
    store = planted.make_store(tmp_path)
    screen = review_screen_for_store(store, "bob", metric=planted.METRIC)
    opened: list[pl.DataFrame] = []

    def judge(pairs: pl.DataFrame) -> Screen:
        opened.append(pairs)
        return Judged(pairs)

    screen.context.judge = judge

    async def drive() -> None:
        app = GoldsetApp(lambda: screen)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await pilot.press("s")
            await pilot.pause()
            assert isinstance(app.screen, ReportSummaryScreen)
            body = text_of(app, "#summary-body")
            # bob never judged g5: 3 of lex's 18 top-3 slots have no grade.
            assert "lex: judged 0.833 of its top 3" in body
            assert "holes in 1 query not in the table yet" in body
            await pilot.press("escape")
            await pilot.pause()
            await pilot.press("right", "right", "down", "down", "enter")
            await pilot.pause()
            rows = table_rows(app.screen.query_one(DataTable))
            g5 = next(r for r in rows if r[0] == "g5")
            assert "unjudged" in " ".join(g5)
            await pilot.press("J")
            await pilot.pause()
            assert set(opened[0].filter(pl.col("query_id") == "g5").get_column("doc_id")) == {
                "d30",
                "d31",
                "d32",
                "d33",
            }

    asyncio.run(drive())


def test_n_and_p_step_through_the_failing_list_from_the_top_k(tmp_path) -> None:
    context = _file_context(tmp_path)

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press(*TO_ALL_LEX, "enter")
            await pilot.pause()
            top = app.screen
            assert isinstance(top, TopKScreen) and top.query_id == "g1"
            assert "(1 of 3, n/p)" in text_of(app, "#drill-title")
            await pilot.press("n")
            await pilot.pause()
            assert top.query_id == "g3" and text_of(app, "#drill-title").startswith("g3 (2 of 3")
            # g3's own top 3: lex d11 d12 d06, the hole at rank 3.
            assert str(top.query_one(DataTable).get_cell_at((2, 1))) == "[?] d06"
            await pilot.press("n", "n")  # g4, then the end of the list: stays
            await pilot.pause()
            assert top.query_id == "g4"
            await pilot.press("p")
            await pilot.pause()
            assert top.query_id == "g3"
            await pilot.press("escape")
            await pilot.pause()
            failures = app.screen
            assert isinstance(failures, FailuresScreen)
            table = failures.query_one(DataTable)
            assert table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value == "g3"

    asyncio.run(drive())
