"""The top-k screen keeps the documents of one screen apart: long ids are cut in the middle, the
forms stay distinct, and the full id is under the table for the highlighted cell and behind `i`
(cut at the end, `pathlib#PurePath.…` and `LA091089-02…` each read twice at 80x24)."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import polars as pl
from textual.widgets import DataTable, Static

from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.report import ReportScreen, ReviewContext
from goldset_tui.ui.widgets.report_drill import TopKScreen
from goldset_tui.ui.widgets.report_ids import IdsScreen

_spec = importlib.util.spec_from_file_location(
    "report_ui_data", Path(__file__).parents[1] / "unit" / "report" / "ui_data.py"
)
ui_data = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ui_data)

TO_TOPK = ["right", "right", "down", "down", "enter", "enter"]  # bm25, negation, q11


def test_alike_ids_stay_distinct_at_80x24_and_the_full_id_is_one_key_away() -> None:
    async def run() -> None:
        context = ReviewContext(ui_data.make_report_long_ids(), topics=ui_data.make_topics())
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press(*TO_TOPK)
            await pilot.pause()
            assert isinstance(app.screen, TopKScreen)
            grid = app.screen.query_one(DataTable)
            shown = [str(grid.get_cell_at((r, c))) for r in (0, 1) for c in (1, 2, 3)]
            ids = [s.split("] ", 1)[1] for s in shown]
            assert len(set(ids)) == 6, ids  # six documents, six different forms
            assert all("…" in i for i in ids if len(i) < 13)  # cut in the middle, not at the end
            assert not any(i.endswith("…") for i in ids)
            # The highlighted cell's id in full under the table, wrapped, never cut (the view
            # opens on the first system's column).
            await pilot.pause()
            notes = str(app.screen.query_one("#drill-notes", Static).render())
            assert "document: pathlib#PurePath.with_suffix" in notes
            await pilot.press("right", "down")
            await pilot.pause()
            notes = str(app.screen.query_one("#drill-notes", Static).render())
            assert "document: LA091089-0213" in notes
            assert "i: full ids" in notes
            await pilot.press("i")
            await pilot.pause()
            assert isinstance(app.screen, IdsScreen)
            # Every id whole on one line of the terminal: the popup used to share its width
            # with the key list and wrapped "pathlib#PurePath.with_suffix" inside itself.
            strips = app.screen._compositor.render_strips()
            lines = ["".join(seg.text for seg in strip) for strip in strips]
            for full in ui_data.LONG_IDS.values():
                assert any(full in line for line in lines), full

    asyncio.run(run())


def test_ids_longer_than_half_the_screen_are_listed_whole_at_80x24() -> None:
    """A 46-character id (an MS MARCO-like passage id with its section) was wrapped inside
    itself by `i`: the list had half the dialog, the key list the other half."""
    long_id = "msmarco_passage_00_123456789#section-introduction"[:46]
    report = ui_data.make_report_long_ids()
    report.topk = report.topk.with_columns(
        doc_id=pl.when((pl.col("query_id") == "q11") & (pl.col("rank") == 1))
        .then(pl.concat_str(pl.lit(long_id), pl.col("system")))
        .otherwise(pl.col("doc_id"))
    )

    async def run() -> None:
        context = ReviewContext(report, topics=ui_data.make_topics())
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press(*TO_TOPK, "i")
            await pilot.pause()
            strips = app.screen._compositor.render_strips()
            lines = ["".join(seg.text for seg in strip) for strip in strips]
            for system in ("bm25", "dense", "rrf"):
                assert any(f"{long_id}{system}" in line for line in lines), system

    asyncio.run(run())
