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
        args += ["--metric", "nDCG@10", "--samples", "50", "--store", str(store)]
        assert main([*args, "--release", release]) == 0
    return store
