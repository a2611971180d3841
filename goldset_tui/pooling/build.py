"""Depth-k pooling (TREC): the union of every system's top k, judged instead of the corpus.

Pure functions over Polars frames so a notebook gets the same pool as ``goldset pool``::

    from goldset_tui.io.trec import read_run
    from goldset_tui.pooling.build import build_pool, pool_sizes
    pool = build_pool({"bm25": read_run("bm25.run"), "dense": read_run("dense.run")}, depth=20)

Four systems x top 20 would be 80 candidates a query if they agreed about nothing; they agree a
lot, so a pool lands between 30 and 50 (docs/background.md#pooling-depth). ``pool_sizes``
measures that overlap discount.
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
    return order_pool(pool_candidates(runs, depth), "query_id").select(list(POOL_COLUMNS))


def pool_candidates(runs: Mapping[str, pl.DataFrame], depth: int) -> pl.DataFrame:
    """:func:`build_pool`'s rows, in no particular order: ``query_id, doc_id, systems, ranks``
    and, for :func:`order_pool`, ``_best`` (the best rank) and ``_systems`` (how many).

    A caller that puts the queries in another order (the topics') sorts once instead of twice:
    the order within a query is total (a document is there once), so sorting by query first and
    again by topic gives what one sort by topic, best rank, systems and doc_id gives."""
    if not runs:
        raise ValueError("pooling needs at least one run")
    parts = []
    for name, run in runs.items():
        part = top_k(run, depth)
        _refuse_duplicates(name, part)
        parts.append(part.with_columns(pl.lit(name).alias("system")))
    # The runs stacked in their order: within a (query, document) group the rows keep it, so the
    # systems and ranks lists come in the order of ``runs``.
    return (
        pl.concat(parts)
        .group_by("query_id", "doc_id")
        .agg(
            pl.col("system").alias("systems"),
            pl.col("rank").alias("ranks"),
            pl.col("rank").min().alias("_best"),
            pl.len().alias("_systems"),
        )
    )


def order_pool(pool: pl.DataFrame, queries: str) -> pl.DataFrame:
    """:func:`pool_candidates`' rows by the column ``queries`` (``query_id``, or an integer
    giving the query order), then best rank, then how many systems (more first), then doc_id."""
    if pool.schema[queries].is_integer() and _fits(pool, queries):
        # The three integer keys packed into one (24 + 24 + 16 bits, the order unchanged), then
        # the document id: an index sort of two keys and one gather, where four sort keys
        # (strings among them) cost twice as much on a 7,000-query pool.
        packed = (
            pl.col(queries).cast(pl.UInt64) * (1 << 40)
            + pl.col("_best").cast(pl.UInt64) * (1 << 16)
            + (0xFFFF - pl.col("_systems").cast(pl.UInt64))
        )
        return pool[pool.select(pl.arg_sort_by(packed, pl.col("doc_id"))).to_series()]
    return pool.sort(
        [queries, "_best", "_systems", "doc_id"], descending=[False, False, True, False]
    )


def _fits(pool: pl.DataFrame, queries: str) -> bool:
    """Whether each key of :func:`order_pool`'s packed sort fits its bits."""
    if pool.height == 0:
        return False
    lowest, top, best, systems = pool.select(
        pl.min_horizontal(pl.col(queries).min(), pl.col("_best").min()).alias("lowest"),
        pl.col(queries).max().alias("top"),
        pl.col("_best").max(),
        pl.col("_systems").max(),
    ).row(0)
    return bool(lowest >= 0 and top < 1 << 24 and best < 1 << 24 and systems <= 0xFFFF)


def _refuse_duplicates(name: str, part: pl.DataFrame) -> None:
    """A run's top k with a document twice for a query is refused (read_run refuses such files,
    but a frame may come from anywhere). A hash of the pairs first: a repeated hash is only a
    candidate, which the exact check then names."""
    pair = pl.col("query_id").hash(11) ^ pl.col("doc_id").hash(13)
    if part.select(pair.n_unique()).item() == part.height:
        return
    dup = part.filter(pl.struct("query_id", "doc_id").is_duplicated())
    if dup.height:
        first = dup.row(0, named=True)
        raise ValueError(
            f"run {name!r} lists document {first['doc_id']!r} twice for query {first['query_id']!r}"
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
