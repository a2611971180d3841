"""A default-folder store of the sample pool with alice's illustrative grades and the sample's
three ILLUSTRATIVE releases recorded, for the history screen's tests and snapshots."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from goldset_tui.cli import main
from goldset_tui.io.trec import read_qrels
from goldset_tui.store import Project, default_store_for, sha256_file

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


def recorded_store() -> Path:
    pool = SAMPLE / "pool.jsonl"
    store = default_store_for(pool)
    project = Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    grades = read_qrels(SAMPLE / "judgments" / "alice.qrels").with_columns(
        pl.lit(None, pl.String).alias("time"), pl.lit(None, pl.String).alias("note")
    )
    project.add_grades("alice", grades)
    for release in ("2026.1", "2026.2", "2026.3"):
        folder = SAMPLE / "releases" / release
        args = ["report", "--qrels", str(store), "--strata", str(SAMPLE / "strata.csv")]
        args += ["--run", f"bm25={folder / 'bm25.run'}", "--run", f"minilm={folder / 'minilm.run'}"]
        args += ["--measure", "nDCG@10", "--samples", "50", "--store", str(store)]
        assert main([*args, "--release", release]) == 0
    return store


def disagreeing_store(root: Path) -> Path:
    """A store whose one recorded change has an interval and a p-value that disagree: 5 of 42
    queries go from 0 to 1 between r1 and r2, the rest tie. The interval excludes 0 (by hand,
    [+0.007, +0.228]: tests/unit/report/test_report_paired.py) while five sign flips cannot give a
    p under 2/32 = 0.0625 (tests/unit/history/test_timeline.py checks both)."""
    from goldset_tui.history.records import make_record, record

    pool = root / "pool.csv"
    rows = [f"q{i:02d},query {i},d{i},text {i}" for i in range(42)]
    pool.write_text("query_id,query,doc_id,text\n" + "\n".join(rows) + "\n", encoding="utf-8")
    store = root / "store"
    Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    queries = [f"q{i:02d}" for i in range(42)]
    for release, time, moved in (
        ("r1", "2026-01-01T00:00:00Z", 0),
        ("r2", "2026-02-01T00:00:00Z", 5),
    ):
        values = [1.0 if i < moved else 0.0 for i in range(42)]
        record(
            store,
            make_record(
                release=release,
                system="bm25",
                measure="nDCG@10",
                version={"id": "v1"},
                scores=pl.DataFrame({"query_id": queries, "value": values}),
                time=time,
            ),
        )
    return store
