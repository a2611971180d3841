"""Pilot tests of the report, drill-down and closure screens (hand-made data, see ui_data.py).

No async test plugin is installed: each test runs its coroutine with ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
from pathlib import Path

import polars as pl
from textual.screen import Screen
from textual.widgets import DataTable, Static

from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.closure import ClosureScreen
from goldset_tui.ui.screens.report import ReportScreen, ReviewContext
from goldset_tui.ui.widgets.report_bar import interval_bar
from goldset_tui.ui.widgets.report_drill import FailuresScreen, TopKScreen

_spec = importlib.util.spec_from_file_location(
    "report_ui_data", Path(__file__).parents[1] / "unit" / "report" / "ui_data.py"
)
ui_data = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ui_data)


def _sync(coro_fn):
    @functools.wraps(coro_fn)
    def run(*args, **kwargs):
        return asyncio.run(coro_fn(*args, **kwargs))

    return run


def _app(context: ReviewContext) -> GoldsetApp:
    return GoldsetApp(lambda: ReportScreen(context))


def _text(app: GoldsetApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


class Judged(Screen[None]):
    """Stands in for the judging screen: the test checks what it was given, then dismisses it."""

    def __init__(self, pairs: pl.DataFrame) -> None:
        super().__init__()
        self.pairs = pairs


@_sync
async def test_report_table_and_drill_down_into_judging() -> None:
    opened: list[pl.DataFrame] = []
    recomputed: list[int] = []

    def judge(pairs: pl.DataFrame) -> Screen:
        opened.append(pairs)
        return Judged(pairs)

    def on_judged():
        recomputed.append(1)
        return ui_data.make_report()

    context = ReviewContext(
        ui_data.make_report(), topics=ui_data.make_topics(), judge=judge, on_judged=on_judged
    )
    app = _app(context)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReportScreen)
        table = screen.query_one(DataTable)
        assert table.row_count == 4  # three strata and "all"
        assert "table closes" in _text(app, "#report-title")
        # bm25 column, negation row: bm25 hit q10 and missed q11, q12 (ui_data.BM25).
        await pilot.press("right", "right", "down", "down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, FailuresScreen)
        failures = app.screen.query_one(DataTable)
        assert [
            failures.coordinate_to_cell_key((i, 0)).row_key.value for i in range(failures.row_count)
        ] == ["q11", "q12"]
        assert "bm25 · negation: 2 failing of 3" in _text(app, "#drill-title")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TopKScreen) and app.screen.query_id == "q11"
        grid = app.screen.query_one(DataTable)
        assert grid.row_count == 3  # k = 3
        assert str(grid.get_cell_at((2, 1))) == "[?] bq11-3"  # rank 3 never judged
        assert str(grid.get_cell_at((0, 1))) == "[0] bq11-1"
        await pilot.press("J")
        await pilot.pause()
        assert isinstance(app.screen, Judged)
        assert opened[0].rows() == [("q11", "bq11-3"), ("q11", "dq11-3"), ("q11", "rq11-3")]
        app.screen.dismiss(None)
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert recomputed == [1]
        assert isinstance(app.screen, TopKScreen)
        await pilot.press("escape")
        await pilot.pause()
        # J on the failing list: every unjudged pair of both failing queries.
        await pilot.press("J")
        await pilot.pause()
        assert opened[1].get_column("query_id").unique().sort().to_list() == ["q11", "q12"]
        assert opened[1].height == 6


@_sync
async def test_all_row_lists_failures_across_strata_and_judging_unavailable_says_so() -> None:
    app = _app(ReviewContext(ui_data.make_report()))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("right", "right", "right", "down", "down", "down", "enter")  # dense, all
        await pilot.pause()
        assert isinstance(app.screen, FailuresScreen)
        assert app.screen.failing_ids() == ["q02", "q04", "q10", "q11", "q12"]
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("J")
        await pilot.pause()
        assert isinstance(app.screen, TopKScreen)
        assert any("--store" in str(n.message) for n in app._notifications)


@_sync
async def test_closure_screen_shows_report_and_sampling_checks() -> None:
    sampling = [
        {
            "name": "traffic shares sum to 1",
            "expected": 1.0,
            "actual": 0.92,
            "residual": -0.08,
            "ok": False,
        },
        {
            "name": "sample sizes sum to the set size",
            "expected": 160,
            "actual": 160,
            "residual": 0,
            "ok": True,
        },
    ]
    context = ReviewContext(
        ui_data.make_report(), sampling_closure=sampling, sampling_source="sample.toml"
    )
    app = _app(context)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ClosureScreen)
        table = app.screen.query_one(DataTable)
        assert table.row_count == len(context.report.closure) + 2
        last = [str(table.get_cell_at((table.row_count - 2, c))) for c in range(5)]
        assert last == ["✗", "sampling · traffic shares sum to 1", "1", "0.9200", "-0.0800"]
        assert str(table.get_cell_at((0, 0))) == "✓"
        assert "1 failed" in _text(app, "#closure-title")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ReportScreen)


@_sync
async def test_closure_screen_names_dropped_golden_set_queries() -> None:
    # ui_data's strata plus two golden-set queries the table leaves out (no score for them).
    report = ui_data.make_report()
    strata = pl.concat(
        [
            report.strata_frame,
            pl.DataFrame({"query_id": ["q13", "q14"], "stratum": ["negation", "identifier"]}),
        ]
    )
    from goldset_tui.report.pipeline import assemble_report

    report = assemble_report(report.scores, strata, metric="Success@3", fused="rrf")
    app = _app(ReviewContext(report))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "DOES NOT close" in _text(app, "#report-title")
        await pilot.press("c")
        await pilot.pause()
        assert "2 golden-set queries dropped" in _text(app, "#closure-title")
        table = app.screen.query_one(DataTable)
        names = [str(table.get_cell_at((r, 1))) for r in range(table.row_count)]
        dropped = [n for n in names if n.startswith("dropped")]
        assert [n.split(" · ")[1].split(" ")[0] for n in dropped] == ["q13", "q14"]
        row = names.index(dropped[0])
        assert str(table.get_cell_at((row, 0))) == "✗"
        table.move_cursor(row=row)
        await pilot.pause()
        detail = _text(app, "#closure-detail")
        assert "q13 (negation): not evaluated" in detail and "golden set" in detail


# The sampling manifest's real check names (goldset_tui/sampling/sample.py), as in the audit's
# `review --sampling-manifest short.manifest.toml`, where "residual" was cut to one "r" at 80 columns.
LONG_SAMPLING = [
    {
        "name": "every distinct query in exactly one stratum",
        "expected": 0,
        "actual": 0,
        "residual": 0,
        "ok": True,
    },
    {
        "name": "occurrences sum to the log's total",
        "expected": 214000,
        "actual": 214000,
        "residual": 0,
        "ok": True,
    },
    {
        "name": "set size reaches the requested size",
        "expected": 510,
        "actual": 183,
        "residual": -327,
        "ok": False,
    },
]


@_sync
async def test_closure_table_fits_80_columns_with_long_check_names() -> None:
    report = ui_data.make_report()
    app = _app(
        ReviewContext(report, sampling_closure=LONG_SAMPLING, sampling_source="short.manifest.toml")
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        # Every column, residual included, is inside the table: nothing to scroll sideways to.
        assert table.virtual_size.width <= table.scrollable_content_region.width
        assert [str(c.label) for c in table.columns.values()] == [
            "ok",
            "check",
            "expected",
            "actual",
            "residual",
        ]
        failing = table.row_count - 1
        assert [str(table.get_cell_at((failing, c))) for c in (0, 2, 3, 4)] == [
            "✗",
            "510",
            "183",
            "-327",
        ]
        name = str(table.get_cell_at((failing, 1)))
        assert name.endswith("…") and "sampling · set size reaches the requested size".startswith(
            name[:-1]
        )
        # The highlighted check is shown in full under the table.
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert table.cursor_row == failing
        detail = _text(app, "#closure-detail")
        assert (
            "sampling · set size reaches the requested size" in detail and "residual -327" in detail
        )
        # Wider, the names are whole again; the cursor stays on the same check.
        await pilot.resize_terminal(140, 30)
        await pilot.pause()
        assert (
            str(table.get_cell_at((failing, 1))) == "sampling · set size reaches the requested size"
        )
        assert table.cursor_row == failing
        assert table.virtual_size.width <= table.scrollable_content_region.width


@_sync
async def test_closure_notes_wrap_at_80_columns_never_cut() -> None:
    # "Wrap or scroll, never cut" (issue 12, item 13): the notes under the closure table were
    # one line cut with an ellipsis, so at 80x24 the sampling manifest's name read "short.m…".
    import html
    import re

    source = "runs/2026-11/golden-set-for-the-docs-search.manifest.toml"
    report = ui_data.make_report()
    app = _app(ReviewContext(report, sampling_closure=LONG_SAMPLING, sampling_source=source))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        notes = app.screen.query_one("#closure-notes", Static)
        svg = app.export_screenshot()
        shown = html.unescape(" ".join(re.findall(r"<text[^>]*>(.*?)</text>", svg)))
        shown = re.sub(r"\s+", "", shown.replace("\xa0", " "))  # lines joined, spaces aside
        assert re.sub(r"\s+", "", f"sampling: {source}") in shown
        assert notes.region.width <= 80 and notes.region.height >= 3  # border + two lines


@_sync
async def test_broken_table_is_announced_and_warnings_listed() -> None:
    report = ui_data.make_report()
    report.closure[0] = type(report.closure[0])("n column sums to the query count", 12.0, 11.0)
    app = _app(ReviewContext(report))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "DOES NOT close" in _text(app, "#report-title")
        assert "warning" in _text(app, "#report-notes")
        await pilot.press("w")
        await pilot.pause()
        assert "30% of its top 3 is unjudged" in str(
            app.screen.query_one("#help-guidelines", Static).render()
        )


@_sync
async def test_hostile_stratum_names_are_shown_literally() -> None:
    app = _app(ReviewContext(ui_data.make_report(hostile=True)))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        label = str(table.get_cell_at((2, 0)))
        assert label.startswith("[b]neg␛[31m[/b]")


def test_interval_bar_marks_interval_and_mean() -> None:
    bar = str(interval_bar(0.44, 0.25, 0.66, 20))
    assert len(bar) == 20
    assert bar.index("●") == 8  # 0.44 * 20
    assert bar[:5] == "─────" and bar[5:14].replace("●", "━") == "━" * 9 and bar[14:] == "──────"
    assert str(interval_bar(1.0, 0.8, 1.0, 10)).endswith("━●")


@_sync
async def test_cursor_stays_put_when_the_report_is_recomputed() -> None:
    # After judging, a worker recomputes and the tables are refilled: an arrow key pressed in the
    # meantime must not be undone by the cursor jumping back to the top-left corner.
    context = ReviewContext(ui_data.make_report(), topics=ui_data.make_topics())
    app = _app(context)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        await pilot.press("down", "right", "right", "right")
        await pilot.pause()
        assert (table.cursor_coordinate.row, table.cursor_coordinate.column) == (1, 3)
        app.screen.report_changed(ui_data.make_report())
        await pilot.pause()
        assert (table.cursor_coordinate.row, table.cursor_coordinate.column) == (1, 3)
        await pilot.press("right")
        await pilot.pause()
        assert table.cursor_coordinate.column == 4
        table.move_cursor(row=2, column=2)  # bm25 on the negation row: q11's top k
        await pilot.press("enter", "enter")
        await pilot.pause()
        top = app.screen
        assert isinstance(top, TopKScreen)
        drill = top.query_one(DataTable)
        await pilot.press("down", "down", "right")
        await pilot.pause()
        before = drill.cursor_coordinate
        top.report_changed(context.report)
        await pilot.pause()
        assert drill.cursor_coordinate == before and before.row == 2


@_sync
async def test_the_highlighted_cell_and_wide_cells_show_the_interval_in_numbers() -> None:
    from scipy.stats import binomtest

    from goldset_tui.report.pipeline import to_markdown

    report = ui_data.make_report()
    # bm25 on identifier: 4 hits of 5 (ui_data.BM25); Wilson's interval with continuity
    # correction, the report's for a stratum's 0/1 rate, from scipy.
    lo, hi = binomtest(4, 5).proportion_ci(0.95, method="wilsoncc")
    figures = f"4/5 · 0.800 [{lo:.3f}, {hi:.3f}]"
    assert figures in to_markdown(report)  # the Markdown's own words for that cell
    app = _app(ReviewContext(report))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("right", "right")
        await pilot.pause()
        assert f"identifier · bm25: {figures}" in _text(app, "#report-notes")
        await pilot.press("down", "right")  # dense on paraphrase: 4 of 4
        await pilot.pause()
        lo, hi = binomtest(4, 4).proportion_ci(0.95, method="wilsoncc")
        assert f"paraphrase · dense: 4/4 · 1.000 [{lo:.3f}, {hi:.3f}]" in _text(
            app, "#report-notes"
        )
    app = _app(ReviewContext(ui_data.make_report()))
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        assert str(table.get_cell_at((0, 2))).startswith(figures + " ")
        # The overall row: 7 hits of 12 for bm25.
        lo, hi = binomtest(7, 12).proportion_ci(0.95, method="wilsoncc")
        assert str(table.get_cell_at((3, 2))).startswith(f"7/12 · 0.583 [{lo:.3f}, {hi:.3f}] ")
