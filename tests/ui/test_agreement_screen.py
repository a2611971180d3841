"""Pilot tests of the agreement screen: matrix, summary, disagreements, the detail modal.

No async test plugin is installed: each test runs its coroutine with ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import functools

import krippendorff
import numpy as np
import polars as pl
import pytest
from rich.text import Text
from textual.widgets import DataTable, Static

from goldset_tui.agreement.example import DOCS, GRADES, build_example_store
from goldset_tui.agreement.sources import from_store, strata_of
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.agreement import AgreementScreen
from goldset_tui.ui.widgets.agreement_detail import PairDetailScreen


@pytest.fixture
def data(tmp_path):
    return from_store(build_example_store(tmp_path / "demo"))


def synchronously(coro_fn):
    @functools.wraps(coro_fn)
    def wrapper(*args, **kwargs):
        return asyncio.run(coro_fn(*args, **kwargs))

    return wrapper


def screen_text(app) -> str:
    """What the terminal shows, as plain text (rendered by the screen's compositor)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


def make_app(data) -> GoldsetApp:
    return GoldsetApp(lambda: AgreementScreen(data, strata=strata_of(data, None), replicates=50))


def plain(widget: Static) -> str:
    content = widget.content
    return content.plain if isinstance(content, Text) else str(content)


@synchronously
async def test_matrix_summary_and_disagreements_ranked(data) -> None:
    app = make_app(data)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AgreementScreen)
        matrix = screen.query_one("#agreement-matrix", DataTable)
        assert matrix.row_count == 3
        # ann x bob, quadratic kappa over their 12 common units (checked against sklearn elsewhere).
        ann_bob = [p for p in screen.report["pairs"] if (p["a"], p["b"]) == ("ann", "bob")][0]
        assert str(matrix.get_cell_at((0, 2))) == f"{ann_bob['kappa_quadratic']:.3f} (12)"
        summary = plain(screen.query_one("#agreement-summary", Static))
        matrix_values = np.array(
            [
                [np.nan if g is None else g for q in DOCS for g in GRADES[n][q]]
                for n in sorted(GRADES)
            ],
            dtype=float,
        )
        ordinal = krippendorff.alpha(matrix_values, level_of_measurement="ordinal")
        assert f"ordinal {ordinal:.3f}" in summary
        assert "howto" in summary and "error" in summary and ">=2" in summary
        listing = screen.query_one("#agreement-disagreements", DataTable)
        assert listing.row_count == 6
        assert str(listing.get_cell_at((0, 0))).strip() == "3"
        assert str(listing.get_cell_at((0, 4))) == "errors/conn-reset"


@synchronously
async def test_cycle_matrix_measure(data) -> None:
    app = make_app(data)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("m")
        title = plain(app.screen.query_one("#agreement-matrix-title", Static))
        assert "linear" in title


@synchronously
async def test_enter_opens_the_pair_with_every_grade_note_and_time_as_literal_text(data) -> None:
    app = make_app(data)
    async with app.run_test(size=(100, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PairDetailScreen)
        details = app.screen._details
        assert (details.query_id, details.doc_id) == ("q3", "errors/conn-reset")
        assert [(g.labeller, g.grade) for g in details.grades] == [
            ("ann", 3),
            ("bob", 0),
            ("cy", 1),
        ]
        rendered = screen_text(app)
        # The candidate text's markup is shown, not executed; the note's escape shows as a placeholder.
        assert "[@click=app.quit]" in rendered and "link[/]" in rendered
        assert "\u241b[31mproxy" in rendered and "\x1b" not in rendered
        assert "perfectly relevant" in rendered and "13s" in rendered
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, AgreementScreen)
        assert app.is_running  # the markup in the text did not quit the app


@synchronously
async def test_self_consistency_shown_when_the_store_has_repeats(tmp_path) -> None:
    from goldset_tui.model import Judgment
    from goldset_tui.store.project import Project

    store = build_example_store(tmp_path / "demo")
    with Project.open(store).writer("bob") as writer:
        writer.record(
            Judgment("bob", "q1", "api-keys/rotation", 2, "2026-01-05T18:00:00Z", kind="repeat")
        )
        writer.record(
            Judgment("bob", "q1", "billing/invoices", 0, "2026-01-05T18:01:00Z", kind="repeat")
        )
    app = make_app(from_store(store))
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        summary = plain(app.screen.query_one("#agreement-summary", Static))
        # bob first gave 3 and 0: one of two repeats agrees, shifted down by 0.5 on average.
        assert "Self-consistency" in summary and "bob 0.500 of 2 (-0.50)" in summary


@synchronously
async def test_disagreement_grades_stay_on_screen_at_80_columns_with_long_ids(data) -> None:
    # The grades came after the document column: with the sample data's ids (up to 50
    # characters) an 80-column screen showed "alice=1 bob=" and never bob's grade.
    long = "documentation/library/json#JSONDecoder.object_pairs_hook.__init__/2"
    data.ratings = data.ratings.with_columns(pl.lit(long).alias("doc_id") + pl.col("doc_id"))
    app = make_app(data)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        listing = app.screen.query_one("#agreement-disagreements", DataTable)
        grades = str(listing.get_cell_at((0, 2)))
        assert grades == "ann=3 bob=0 cy=1"
        assert grades in screen_text(app)


@synchronously
async def test_intervals_in_the_matrix_and_position_bias_tables(data) -> None:
    from goldset_tui.ui.widgets.position_bias import PositionBiasScreen

    app = make_app(data)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AgreementScreen)
        summary = plain(screen.query_one("#agreement-summary", Static))
        # The example store's 10 judgments a labeller are too few for a trend (30 are needed).
        assert (
            "Position bias" in summary
            and "too few judgments for a trend (10; 30 needed)" in summary
        )
        assert (
            "queries redrawn 50 times for a figure undefined" in summary and "seed" not in summary
        )
        await pilot.press("i")
        ann_bob = next(p for p in screen.report["pairs"] if (p["a"], p["b"]) == ("ann", "bob"))
        lo, hi = ann_bob["kappa_quadratic_ci95"]
        matrix = screen.query_one("#agreement-matrix", DataTable)
        assert str(matrix.get_cell_at((0, 2))) == (
            f"{ann_bob['kappa_quadratic']:.3f} [{lo:.2f}, {hi:.2f}]"
        )
        assert "95% interval" in plain(screen.query_one("#agreement-matrix-title", Static))
        await pilot.press("b")
        await pilot.pause()
        assert isinstance(app.screen, PositionBiasScreen)
        text = screen_text(app)
        assert "shown at" in text and "into sitting" in text and "cy" in text
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen


def test_position_bias_tables_show_labeller_names_literally() -> None:
    from rich.console import Console

    from goldset_tui.agreement.position import position_bias
    from goldset_tui.model import GradeScale
    from goldset_tui.ui.widgets.position_bias import bias_renderable

    name = "[bold]ann\x1b[31m [@click=app.quit]x"
    judgments = pl.DataFrame(
        {
            "labeller": [name] * 3,
            "query_id": ["q1"] * 3,
            "doc_id": ["a", "b", "c"],
            "grade": [3, 1, 0],
            "time": ["2026-01-05T09:00:00Z", "2026-01-05T09:01:00Z", "2026-01-05T09:02:00Z"],
            "position": [0, 1, 2],
            "seq": [0, 1, 2],
        }
    )
    console = Console(width=100, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(bias_renderable(position_bias(judgments, GradeScale())))
    text = console.export_text()
    assert "[bold]ann" in text and "[@click=app.quit]x" in text
    assert "\x1b" not in text  # the escape is shown as a visible placeholder


def test_the_position_bias_screen_says_a_sitting_was_too_short_for_a_time_trend() -> None:
    from goldset_tui.ui.widgets.position_bias import trend_text

    short = {"judgments": 40, "min_judgments": 30, "too_few": False, "too_short": True}
    short |= {"span": 0.975, "min_span": 10.0, "grade_per_10": None, "grade_p_value": None}
    text = trend_text(short, "minutes").plain
    assert text == "sittings too short for a trend (judgments span 1.0 minutes; 10 needed)"


@synchronously
async def test_four_labellers_matrix_cells_are_whole_at_80x24(tmp_path) -> None:
    """Side by side with the summary, the matrix of four labellers had 40 columns and cut
    "-0.585 (6)" to "-0.5": it goes above the summary when half the screen cannot hold it."""
    import importlib.util
    import random
    from pathlib import Path

    from goldset_tui.store.files import sha256_file
    from goldset_tui.store.project import Project

    spec = importlib.util.spec_from_file_location(
        "planted", Path(__file__).parents[1] / "unit" / "report" / "planted.py"
    )
    planted = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(planted)
    pool = planted.pool_file(tmp_path / "pool.jsonl")
    project = Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))
    pairs = [("g1", "d04"), ("g1", "d05"), ("g2", "d01"), ("g2", "d02"), ("g3", "d06")]
    rng = random.Random(3)
    for who in ["annabelle", "bob", "cy", "dee"]:
        project.import_prior(
            planted.qrels_frame({p: rng.randint(0, 3) for p in pairs}), labeller=who
        )
    app = make_app(from_store(tmp_path / "store"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.screen.query_one("#agreement-matrix", DataTable)
        cells = [
            str(table.get_cell_at((r, c)))
            for r in range(table.row_count)
            for c in range(1, len(table.columns))
        ]
        assert any(c.startswith("-") for c in cells)  # a negative kappa, the widest kind
        shown = screen_text(app)
        for cell in filter(None, cells):
            assert cell in shown, cell
