"""Depth-k pooling (TREC): the union of every system's top k, judged instead of the corpus.

Pure functions over Polars frames so a notebook gets the same pool as ``goldset pool``::

    from goldset_tui.io.trec import read_run
    from goldset_tui.pooling.build import build_pool, pool_sizes
    pool = build_pool({"bm25": read_run("bm25.run"), "dense": read_run("dense.run")}, depth=20)

Seed 000: four systems x top 20 would be 80 candidates a query if they agreed about nothing; they
agree a lot, so a pool lands between 30 and 50. ``pool_sizes`` measures that overlap discount.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

POOL_COLUMNS = {
    "query_id": pl.Utf8,
    "doc_id": pl.Utf8,
    "systems": pl.List(pl.Utf8),
    "ranks": pl.List(pl.Int64),
}


def top_k(run: pl.DataFrame, depth: int) -> pl.DataFrame:
    """``query_id, doc_id, rank`` for the first ``depth`` documents of each query, in the order
    trec_eval reads a run: score descending, ties by doc_id descending (the file's own rank
    column plays no part: a frame with ``score`` is always re-ranked by it; ``rank`` is used only
    when there is no score)."""
    if depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    frame = run.select(
        pl.col("query_id").cast(pl.Utf8), pl.col("doc_id").cast(pl.Utf8), *_rank_source(run)
    )
    if "score" in frame.columns:
        # Cheap pre-filter: anything whose score is beaten by `depth` others cannot make the top k
        # (ties at the boundary survive it); only the survivors pay for the full ordering.
        frame = (
            frame.filter(pl.col("score").rank("min", descending=True).over("query_id") <= depth)
            .sort(["query_id", "score", "doc_id"], descending=[False, True, True])
            .with_columns(
                pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("query_id").alias("rank")
            )
        )
    return frame.filter(pl.col("rank") <= depth).select(
        "query_id", "doc_id", pl.col("rank").cast(pl.Int64)
    )


def _rank_source(run: pl.DataFrame) -> list[pl.Expr]:
    if "score" in run.columns:
        return [pl.col("score").cast(pl.Float64)]
    if "rank" in run.columns:
        return [pl.col("rank")]
    raise ValueError("a run frame needs a 'score' or a 'rank' column")


def build_pool(runs: Mapping[str, pl.DataFrame], depth: int) -> pl.DataFrame:
    """The depth-``depth`` pool of ``runs`` (name -> run frame).

    One row per (query_id, doc_id) any system put in its top ``depth``; ``systems`` lists the
    systems that did, in the order of ``runs``, and ``ranks`` the rank each gave it. Queries come
    sorted by id; within a query candidates are ordered by best rank, then by how many systems
    returned them (more first), then by doc_id, so the order is reproducible.
    """
    if not runs:
        raise ValueError("pooling needs at least one run")
    parts = []
    for order, (name, run) in enumerate(runs.items()):
        part = top_k(run, depth)
        dup = part.filter(pl.struct("query_id", "doc_id").is_duplicated())
        if dup.height:
            first = dup.row(0, named=True)
            raise ValueError(
                f"run {name!r} lists document {first['doc_id']!r} twice for query {first['query_id']!r}"
            )
        parts.append(
            part.with_columns(
                pl.lit(name).alias("system"), pl.lit(order, dtype=pl.Int32).alias("_order")
            )
        )
    stacked = pl.concat(parts).sort(["query_id", "_order"])
    return (
        stacked.group_by("query_id", "doc_id", maintain_order=True)
        .agg(pl.col("system").alias("systems"), pl.col("rank").alias("ranks"))
        .sort(
            [
                pl.col("query_id"),
                pl.col("ranks").list.min(),
                pl.col("systems").list.len(),
                pl.col("doc_id"),
            ],
            descending=[False, False, True, False],
        )
        .select(list(POOL_COLUMNS))
    )


def pool_sizes(
    pool: pl.DataFrame, depth: int | None = None, systems: int | None = None
) -> pl.DataFrame:
    """Per query: ``candidates`` (pool size), ``contributed`` (sum over systems of how many
    documents each put in the pool: the size if they agreed about nothing), ``nominal``
    (depth x systems, when both are known) and ``discount`` (1 - candidates / contributed: the
    share of judging that overlap saves)."""
    if "systems" in pool.columns:
        # Unknown for a query where some candidate does not say which systems returned it.
        listed = pl.col("systems").list.len()
        contributed = pl.when(pl.col("systems").is_null().any()).then(None).otherwise(listed.sum())
    else:
        contributed = pl.lit(None, dtype=pl.Int64)
    sizes = pool.group_by("query_id", maintain_order=True).agg(
        pl.len().cast(pl.Int64).alias("candidates"), contributed.cast(pl.Int64).alias("contributed")
    )
    nominal = pl.lit(depth * systems if depth and systems else None, dtype=pl.Int64)
    return sizes.with_columns(
        nominal.alias("nominal"),
        (1 - pl.col("candidates") / pl.col("contributed")).alias("discount"),
    )
