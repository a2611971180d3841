"""`goldset review` on a store alone: the runs come back from the systems/ranks its pool recorded,
the strata from the pool's stratum column, the qrels from the store's judgments (the sample data's
illustrative alice.qrels imported as a labeller)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.io.pools import load_pool
from goldset_tui.io.trec import read_qrels
from goldset_tui.store.files import sha256_file
from goldset_tui.store.project import Project
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.report import ReportScreen

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


@pytest.fixture
def store(tmp_path) -> Path:
    pool = SAMPLE / "pool.jsonl"
    if not pool.exists():
        pytest.skip("sample data not built")
    project = Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))
    project.import_prior(read_qrels(SAMPLE / "judgments" / "alice.qrels"), labeller="alice")
    return tmp_path / "store"


def test_review_on_a_store_alone(store: Path) -> None:
    from goldset_tui.commands.review import review_screen_for_store

    screen = review_screen_for_store(store, "alice")
    report = screen.context.report
    frame = load_pool(SAMPLE / "pool.jsonl").frame
    # Every system the pool recorded, plus their fusion.
    assert (
        report.systems
        == frame.get_column("systems").explode().unique(maintain_order=True).to_list()
    )
    assert report.fused == "rrf"
    assert set(report.strata) == set(frame.get_column("stratum").unique().to_list())
    # Success@10 from the pool's ranks, recomputed by hand: a hit when a document the labeller
    # graded >= 1 sits at rank <= 10 for that system.
    qrels = read_qrels(SAMPLE / "judgments" / "alice.qrels")
    relevant = set(qrels.filter(pl.col("grade") >= 1).select("query_id", "doc_id").iter_rows())
    queries = {q for q, _ in relevant}
    for system in report.systems:
        rows = (
            frame.select("query_id", "doc_id", "systems", "ranks")
            .explode("systems", "ranks")
            .filter(pl.col("systems") == system)
        )
        hits = {q for q, d, _, r in rows.iter_rows() if r <= 10 and (q, d) in relevant}
        overall = report.overall.filter(pl.col("system") == system).row(0, named=True)
        assert overall["n"] == len(queries)
        assert overall["hits"] == len(hits)
    assert report.closes

    async def drive() -> None:
        app = GoldsetApp(lambda: screen)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, ReportScreen)
            from textual.widgets import DataTable

            assert app.screen.query_one(DataTable).row_count == len(report.strata) + 1

    asyncio.run(drive())


@pytest.fixture
def holey(tmp_path) -> tuple[Path, Path]:
    """A store whose pool came with judgments for two thirds of alice's pairs (imported as the
    ``prior`` labeller, as `goldset judge` imports a pool's judgments), and those qrels as a file."""
    pool = SAMPLE / "pool.jsonl"
    if not pool.exists():
        pytest.skip("sample data not built")
    qrels = read_qrels(SAMPLE / "judgments" / "alice.qrels")
    qrels = qrels.filter(pl.int_range(pl.len()) % 3 != 2)
    path = tmp_path / "holes.qrels"
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels.iter_rows()))
    project = Project.create(tmp_path / "holey", pool_path=pool, pool_sha256=sha256_file(pool))
    project.import_prior(qrels)
    return tmp_path / "holey", path


def _judge_first_hole(store: Path, report, labeller: str = "ana") -> tuple[str, str]:
    """Grade 2 for the first unjudged document of any top k, through the store's own writer (what
    the judging screen opened from the review screen writes with)."""
    from goldset_tui.model import Judgment

    hole = report.topk.filter(pl.col("grade").is_null()).row(0, named=True)
    with Project.open(store).writer(labeller) as w:
        w.record(Judgment(labeller, hole["query_id"], hole["doc_id"], 2, "2026-11-30T12:00:00Z"))
    return hole["query_id"], hole["doc_id"]


def _grades(report, query_id: str, doc_id: str) -> set:
    rows = report.topk.filter((pl.col("query_id") == query_id) & (pl.col("doc_id") == doc_id))
    return set(rows.get_column("grade").to_list())


def test_store_grades_are_in_force_when_review_reopens(holey: tuple[Path, Path]) -> None:
    # A pair judged from the review screen was [?] again after reopening until J.
    from goldset_tui.commands.review import review_screen_for_store

    store = holey[0]
    before = review_screen_for_store(store, "ana").context.report
    holes = before.topk.get_column("grade").null_count()
    query_id, doc_id = _judge_first_hole(store, before)
    screen = review_screen_for_store(store, "ana")
    after = screen.context.report
    assert _grades(after, query_id, doc_id) == {2}
    # Only that pair changed: the prior grades are still in force beside ana's one.
    same_pair = (pl.col("query_id") == query_id) & (pl.col("doc_id") == doc_id)
    assert (
        after.topk.get_column("grade").null_count() == holes - before.topk.filter(same_pair).height
    )

    async def drive() -> None:
        from textual.widgets import DataTable

        from goldset_tui.ui.widgets.report_drill import TopKScreen

        app = GoldsetApp(lambda: screen)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            app.push_screen(TopKScreen(screen.context, query_id))
            await pilot.pause()
            table = app.screen.query_one(DataTable)
            cells = [
                str(table.get_cell_at((r, c)))
                for r in range(table.row_count)
                for c in range(1, len(table.columns))
            ]
            assert any(cell.startswith("[2] ") and doc_id[:8] in cell for cell in cells)

    asyncio.run(drive())


def test_store_grades_override_a_qrels_file_from_the_first_frame(
    holey: tuple[Path, Path],
) -> None:
    # `goldset review --qrels FILE ... --store DIR --labeller ana`: the report opened on the file
    # alone, so ana's grades from an earlier session showed as [?].
    import argparse

    from goldset_tui.commands.review import add_arguments, build_context

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    argv = [
        "--qrels",
        str(holey[1]),
        "--run",
        f"bm25={SAMPLE / 'runs' / 'bm25.run'}",
        "--run",
        f"minilm={SAMPLE / 'runs' / 'minilm.run'}",
        "--strata",
        str(SAMPLE / "strata.csv"),
        "--store",
        str(holey[0]),
        "--labeller",
        "ana",
    ]
    store = holey[0]
    before = build_context(parser.parse_args(argv)).report
    query_id, doc_id = _judge_first_hole(store, before)
    after = build_context(parser.parse_args(argv)).report
    assert _grades(after, query_id, doc_id) == {2}


def test_report_on_the_store_reads_the_same_grades(holey: tuple[Path, Path]) -> None:
    # `goldset report --qrels DIR --labeller ana` takes the store's grades as review does: ana's
    # over the pool's prior judgments, not ana's one grade alone.
    from goldset_tui.app.qrels import report_qrels as read_qrels_arg
    from goldset_tui.commands.review import review_screen_for_store

    store = holey[0]
    query_id, doc_id = _judge_first_hole(
        store, review_screen_for_store(store, "ana").context.report
    )
    qrels = read_qrels_arg(str(store), "ana")
    prior = read_qrels(holey[1])
    assert qrels.height == prior.height + 1
    assert qrels.filter((pl.col("query_id") == query_id) & (pl.col("doc_id") == doc_id))[
        "grade"
    ].to_list() == [2]
