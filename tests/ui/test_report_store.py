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
