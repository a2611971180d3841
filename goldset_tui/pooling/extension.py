"""Re-pooling for a new system (seed 000: "re-pool whenever a genuinely new retrieval family
enters the comparison"): add one system's top k to an existing pool.

:func:`extend_pool` keeps every candidate of the pool as it is, with its provenance (the systems
that returned it and their ranks), adds the new system's rank to the candidates it also returned,
and appends the candidates only it returned after each query's existing ones. Only the pool's
queries are extended. Judgments are keyed by (query_id, doc_id), so every judgment of the old pool
still applies to the new one and the judging screen, which serves the unjudged pairs, serves only
the new ones.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from goldset_tui.pooling.build import top_k


def systems_in(pool: pl.DataFrame) -> set[str]:
    if "systems" not in pool.columns:
        return set()
    return set(pool.get_column("systems").explode().drop_nulls().to_list())


def extend_pool(
    pool: pl.DataFrame, run: pl.DataFrame, name: str, depth: int
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(the extended pool, per query ``query_id, before, new, after``).

    ``pool`` has the pool frame's columns (``query_id, query, doc_id, text, title, stratum,
    systems, ranks``); ``run`` is a run frame (``query_id, doc_id`` and ``score`` or ``rank``).
    New candidates have no text or title (null): the caller fills them from the corpus.
    ValueError when ``name`` already contributed to the pool."""
    if name in systems_in(pool):
        raise ValueError(f"system {name!r} is already in the pool")
    queries = pool.get_column("query_id").unique(maintain_order=True)
    top = top_k(run, depth).filter(pl.col("query_id").is_in(queries.implode()))
    dup = top.filter(pl.struct("query_id", "doc_id").is_duplicated())
    if dup.height:
        first = dup.row(0, named=True)
        raise ValueError(
            f"run {name!r} lists document {first['doc_id']!r} twice for query {first['query_id']!r}"
        )
    ranks = top.select("query_id", "doc_id", pl.col("rank").alias("_new_rank"))
    kept = (
        pool.with_row_index("_row")
        .join(ranks, on=["query_id", "doc_id"], how="left", maintain_order="left")
        .with_columns(
            pl.when(pl.col("_new_rank").is_null())
            .then(pl.col("systems"))
            .otherwise(pl.col("systems").fill_null([]).list.concat(pl.lit([name])))
            .alias("systems"),
            pl.when(pl.col("_new_rank").is_null())
            .then(pl.col("ranks"))
            .otherwise(
                pl.col("ranks").fill_null([]).list.concat(pl.concat_list(pl.col("_new_rank")))
            )
            .alias("ranks"),
        )
    )
    per_query = pool.group_by("query_id", maintain_order=True).agg(
        pl.col("query").first(), pl.col("stratum").first()
    )
    added = (
        top.join(pool.select("query_id", "doc_id"), on=["query_id", "doc_id"], how="anti")
        .join(per_query, on="query_id", how="left")
        .select(
            "query_id",
            "query",
            "doc_id",
            pl.lit(None, pl.Utf8).alias("text"),
            pl.lit(None, pl.Utf8).alias("title"),
            "stratum",
            pl.concat_list(pl.lit(name)).alias("systems"),
            pl.concat_list(pl.col("rank").cast(pl.Int64)).alias("ranks"),
            pl.col("rank").alias("_within"),
        )
    )
    order = per_query.select("query_id").with_row_index("_query")
    columns = list(pool.columns)
    extended = (
        pl.concat(
            [
                kept.select(
                    *columns,
                    pl.lit(0).alias("_block"),
                    pl.col("_row").cast(pl.Int64).alias("_within"),
                ),
                added.select(*columns, pl.lit(1).alias("_block"), pl.col("_within").cast(pl.Int64)),
            ],
            how="vertical_relaxed",
        )
        .join(order, on="query_id", how="left")
        .sort("_query", "_block", "_within")
        .select(columns)
    )
    counts = (
        extended.group_by("query_id", maintain_order=True)
        .agg(pl.len().cast(pl.Int64).alias("after"))
        .join(
            added.group_by("query_id").agg(pl.len().cast(pl.Int64).alias("new")),
            on="query_id",
            how="left",
        )
        .with_columns(pl.col("new").fill_null(0))
        .with_columns((pl.col("after") - pl.col("new")).alias("before"))
        .select("query_id", "before", "new", "after")
    )
    return extended, counts


def last_extension(manifest: dict[str, Any]) -> dict[str, Any] | None:
    """The store's latest ``[[pool_extensions]]`` entry, or None when it was never extended."""
    extensions = manifest.get("pool_extensions") or []
    return extensions[-1] if extensions and isinstance(extensions[-1], dict) else None


def added_by(pool: pl.DataFrame, extension: dict[str, Any]) -> pl.DataFrame | None:
    """``query_id, doc_id`` of the pairs ``extension`` added to ``pool`` (the pool it made).

    :func:`extend_pool` gives a pair it adds the provenance ``[run]`` alone; a pair the pool had
    keeps its systems first. So the pairs whose systems are exactly ``[run]`` are the new ones,
    unless the old pool had candidates without provenance (then an old pair the run also returned
    looks new). The count recorded with the extension tells: None when it does not match, and
    the caller compares with the old pool file instead."""
    if "systems" not in pool.columns:
        return None
    added = pool.filter(
        (pl.col("systems").list.len() == 1) & (pl.col("systems").list.first() == extension["run"])
    ).select("query_id", "doc_id")
    return added if added.height == int(extension.get("new_pairs", -1)) else None
