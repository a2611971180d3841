"""Helpers for the tests of `goldset import --human` and `--machine` (no tests here): a store
over a four-pair pool, and its files' bytes, to show that a refused or repeated import wrote
nothing."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from goldset_tui.store import Project, sha256_file

PAIRS = [("q1", "d1"), ("q1", "d2"), ("q2", "d1"), ("q2", "d3")]
POOL = pl.DataFrame(PAIRS, schema=["query_id", "doc_id"], orient="row")


def pool_store(tmp_path: Path) -> Project:
    """A new store at ``tmp_path/store`` over a pool file of :data:`PAIRS`, nobody's grades."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    pool = tmp_path / "pool.jsonl"
    pool.write_text(
        "".join(
            json.dumps({"query_id": q, "query": f"query {q}", "doc_id": d, "text": f"text {d}"})
            + "\n"
            for q, d in PAIRS
        )
    )
    return Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))


def snapshot(store: Path) -> dict[str, bytes]:
    """Every file of the store and its bytes."""
    # A lock file's text only says who last held it (for the message a refused process shows).
    return {
        str(p.relative_to(store)): p.read_bytes()
        for p in sorted(store.rglob("*"))
        if p.is_file() and not p.name.startswith(".") and p.suffix != ".lock"
    }
