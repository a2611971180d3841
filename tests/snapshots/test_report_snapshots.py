"""Snapshots of the report, its drill-down and the closure screen at 80x24 and 120x40.

Regenerate with `pytest tests/snapshots/test_report_snapshots.py --snapshot-update` and look at the
SVGs before committing them.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.report import ReportScreen, ReviewContext

_spec = importlib.util.spec_from_file_location(
    "report_ui_data", Path(__file__).parents[1] / "unit" / "report" / "ui_data.py"
)
ui_data = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ui_data)

SAMPLING = [
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


def _app() -> GoldsetApp:
    context = ReviewContext(
        ui_data.make_report(),
        topics=ui_data.make_topics(),
        sampling_closure=SAMPLING,
        sampling_source="sample.manifest.toml",
    )
    return GoldsetApp(lambda: ReportScreen(context))


SIZES = [(80, 24), (120, 40)]
# bm25 column, negation row -> its failing queries -> the first one's top k.
TO_FAILURES = ["right", "right", "down", "down", "enter"]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_report_table(snap_compare, size) -> None:
    assert snap_compare(_app(), terminal_size=size)


def test_report_table_wide_cells_carry_their_figures(snap_compare) -> None:
    # At 200 columns each cell has room for its figures beside the bar.
    assert snap_compare(_app(), terminal_size=(200, 50))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_report_failing_queries(snap_compare, size) -> None:
    assert snap_compare(_app(), terminal_size=size, press=TO_FAILURES)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_report_query_top_k(snap_compare, size) -> None:
    assert snap_compare(_app(), terminal_size=size, press=[*TO_FAILURES, "enter"])


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_closure_screen(snap_compare, size) -> None:
    assert snap_compare(_app(), terminal_size=size, press=["c"])


# The sampling manifest's longest check names: cut with an ellipsis so the numbers stay on screen,
# the highlighted one (the failing one, last) shown in full under the table.
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


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_closure_screen_long_names(snap_compare, size) -> None:
    context = ReviewContext(
        ui_data.make_report(), sampling_closure=LONG_SAMPLING, sampling_source="short.manifest.toml"
    )
    assert snap_compare(
        GoldsetApp(lambda: ReportScreen(context)), terminal_size=size, press=["c", "ctrl+end"]
    )


def _dropped_app() -> GoldsetApp:
    # ui_data's report with two golden-set queries the table leaves out (issue 10's closure).
    import polars as pl

    from goldset_tui.report.pipeline import assemble_report

    report = ui_data.make_report()
    extra = pl.DataFrame({"query_id": ["q13", "q14"], "stratum": ["negation", "identifier"]})
    qrels = pl.DataFrame(
        {"query_id": ["q13"], "doc_id": ["d"], "grade": [0]},
        schema={"query_id": pl.Utf8, "doc_id": pl.Utf8, "grade": pl.Int64},
    )
    report = assemble_report(
        report.scores,
        pl.concat([report.strata_frame, extra]),
        metric="Success@3",
        fused="rrf",
        qrels=qrels,
    )
    return GoldsetApp(lambda: ReportScreen(ReviewContext(report)))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_closure_screen_dropped_queries(snap_compare, size) -> None:
    assert snap_compare(_dropped_app(), terminal_size=size, press=["c", "ctrl+end"])


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_report_query_top_k_long_ids(snap_compare, size) -> None:
    # Issue 12: alike ids cut in the middle and kept apart; the highlighted one in full below.
    context = ReviewContext(ui_data.make_report_long_ids(), topics=ui_data.make_topics())
    assert snap_compare(
        GoldsetApp(lambda: ReportScreen(context)),
        terminal_size=size,
        press=[*TO_FAILURES, "enter", "right", "right", "down"],
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_report_summary(snap_compare, size) -> None:
    # Issue 12: the report beyond its table (fusion, overlap and oracle, paired tests), wrapped.
    assert snap_compare(_app(), terminal_size=size, press=["s"])


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_report_summary_scrolled_to_the_end(snap_compare, size) -> None:
    assert snap_compare(_app(), terminal_size=size, press=["s", "end"])


def _reading_app() -> GoldsetApp:
    """The sample report with texts for its documents (the query's words in them, marked)."""
    import polars as pl

    report = ui_data.make_report()
    docs = report.topk.get_column("doc_id").unique().sort().to_list()
    corpus = pl.DataFrame(
        {
            "doc_id": docs,
            "title": [f"Doing thing 11, part {d}" for d in docs],
            "text": [
                f"How do I do thing 11? Document {d} explains the thing step by step: first "
                "check the settings, then run the command again and read what it says. " * 3
                for d in docs
            ],
        }
    )
    context = ReviewContext(report, topics=ui_data.make_topics(), corpus=corpus)
    return GoldsetApp(lambda: ReportScreen(context))


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_report_top_k_with_the_documents_text(snap_compare, size) -> None:
    # Under the ranks at 80 columns, beside them at 200; the query's words marked.
    assert snap_compare(_reading_app(), terminal_size=size, press=[*TO_FAILURES, "enter"])
