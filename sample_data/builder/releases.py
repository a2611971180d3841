"""ILLUSTRATIVE releases of the two sample runs, so the history flow (`goldset report --store
--release`, `goldset history`, `goldset regressions`, `goldset pool --extend`) runs on the sample.

Nobody shipped these releases. Each is the committed run rearranged by a fixed rule, written at
depth 20 (the pool's depth), to play a team's quarter:

- ``2026.1``: both runs as committed (their top 20).
- ``2026.2``: a "tokenizer change" breaks bm25 on the misspelled stratum: for its first three
  queries (by id) the top ten are pushed below the next ten. minilm unchanged.
- ``2026.3``: the fix lands for one of the three queries only; minilm unchanged. A new system
  joins, ``dense-v2``: minilm's ranks 16-35 first, then its ranks 1-15: a stand-in for a new
  retrieval family whose top ten is half outside the pool, so that `goldset report` advises
  `goldset pool --extend`.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

RELEASES = ("2026.1", "2026.2", "2026.3")
DEPTH = 20
BROKEN_STRATUM = "misspelled"


def _read(path: Path) -> pl.DataFrame:
    return pl.read_csv(
        path,
        separator=" ",
        has_header=False,
        new_columns=["query_id", "q0", "doc_id", "rank", "score", "tag"],
        schema_overrides={"query_id": pl.String, "doc_id": pl.String},
    ).select("query_id", "doc_id", "rank")


def _write(frame: pl.DataFrame, path: Path, tag: str) -> None:
    """Ranks renumbered 1..n by the new order; score = depth + 1 - rank, fixed decimals."""
    rows = (
        frame.sort("query_id", "order")
        .with_columns(pl.int_range(1, pl.len() + 1).over("query_id").alias("rank"))
        .filter(pl.col("rank") <= DEPTH)
        .iter_rows(named=True)
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(
            f"{r['query_id']} Q0 {r['doc_id']} {r['rank']} {DEPTH + 1 - r['rank']:.6f} {tag}\n"
            for r in rows
        ),
        encoding="utf-8",
    )


def _push_down(run: pl.DataFrame, queries: list[str]) -> pl.DataFrame:
    """For ``queries``: ranks 1-10 after ranks 11-20 (the top ten fall out of the top ten)."""
    broken = pl.col("query_id").is_in(queries)
    order = (
        pl.when(broken & (pl.col("rank") <= 10))
        .then(pl.col("rank") + 10)
        .when(broken & (pl.col("rank") <= 20))
        .then(pl.col("rank") - 10)
        .otherwise(pl.col("rank"))
    )
    return run.filter(pl.col("rank") <= DEPTH).with_columns(order.alias("order"))


def build_releases(out: Path, strata: pl.DataFrame) -> list[Path]:
    bm25 = _read(out / "runs" / "bm25.run")
    minilm = _read(out / "runs" / "minilm.run")
    broken = sorted(
        strata.filter(pl.col("stratum") == BROKEN_STRATUM).get_column("query_id").to_list()
    )[:3]
    plans = {
        "2026.1": {"bm25": _push_down(bm25, [])},
        "2026.2": {"bm25": _push_down(bm25, broken)},
        "2026.3": {"bm25": _push_down(bm25, broken[1:])},
    }
    written = []
    for release, runs in plans.items():
        runs["minilm"] = _push_down(minilm, [])
        for name, frame in runs.items():
            path = out / "releases" / release / f"{name}.run"
            _write(frame, path, name)
            written.append(path)
    # The new retrieval family of 2026.3 (illustrative): minilm's ranks 16-35, then 1-15.
    deep = minilm.filter(pl.col("rank") <= 35).with_columns(
        pl.when(pl.col("rank") >= 16)
        .then(pl.col("rank") - 15)
        .otherwise(pl.col("rank") + 20)
        .alias("order")
    )
    path = out / "releases" / "2026.3" / "dense-v2.run"
    _write(deep, path, "dense-v2")
    written.append(path)
    return written
