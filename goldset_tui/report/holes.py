"""The holes a review exists to find, kept in view.

The table averages only queries with a relevant grade (as `goldset eval` does, after trec_eval),
so a golden-set query whose only relevant document is unjudged (its grade removed, or a labeller
who never looked at it) is out of the table. That is right for the means and wrong for the
review: the query is exactly where judging is needed. So the report looks at every run's top k
on the golden set as well as on the evaluated queries, and:

- a query out of the table with unjudged documents in any run's top k is listed in every
  system's failing list with ``status`` ``unjudged`` (``fails`` is a query scored 0);
- ``unjudged`` on a failing row counts the distinct unjudged documents of every run's top k for
  that query (null when the report has no top k to count from);
- the closure's reason for dropping such a query says how many holes it has.

The judged shares and the unjudged bounds (``report.compute``) count the same top k. Nothing here
changes which queries are averaged.
"""

from __future__ import annotations

import polars as pl

from goldset_tui.model import NO_STRATUM

FAILS = "fails"
UNJUDGED = "unjudged"


def listed_queries(scored: pl.Series, strata: pl.DataFrame) -> pl.Series:
    """The queries whose top k the report looks at: the evaluated ones, then the golden set's."""
    return pl.concat([scored.cast(pl.Utf8), strata.get_column("query_id").cast(pl.Utf8)]).unique(
        maintain_order=True
    )


def hole_counts(topk: pl.DataFrame) -> pl.DataFrame:
    """``query_id, unjudged``: distinct unjudged documents over every run's top k, per query that
    has any."""
    return (
        topk.filter(pl.col("grade").is_null())
        .select("query_id", "doc_id")
        .unique()
        .group_by("query_id")
        .agg(unjudged=pl.len().cast(pl.Int64))
    )


def failing_with_holes(
    failing: pl.DataFrame,
    scores: pl.DataFrame,
    strata: pl.DataFrame,
    topk: pl.DataFrame | None,
) -> pl.DataFrame:
    """``system, stratum, query_id, status, unjudged``: the queries each system scored 0 on
    (``fails``), then, for every system, the queries out of the table that hold unjudged
    documents in some run's top k (``unjudged``); sorted by system, stratum, query."""
    base = failing.select("system", "stratum", "query_id").with_columns(
        status=pl.lit(FAILS), unjudged=pl.lit(None, dtype=pl.Int64)
    )
    if topk is None:
        return base
    holes = hole_counts(topk)
    base = (
        base.drop("unjudged")
        .join(holes, on="query_id", how="left")
        .with_columns(pl.col("unjudged").fill_null(0))
    )
    scored = scores.get_column("query_id").unique().implode()
    outside = holes.filter(~pl.col("query_id").is_in(scored))
    systems = scores.get_column("system").unique(maintain_order=True)
    stratum = strata.select("query_id", "stratum").unique(subset="query_id", keep="first")
    extra = (
        outside.join(pl.DataFrame({"system": systems}), how="cross")
        .join(stratum, on="query_id", how="left")
        .with_columns(pl.col("stratum").fill_null(NO_STRATUM), status=pl.lit(UNJUDGED))
        .select(base.columns)
    )
    return pl.concat([base, extra]).sort("system", "stratum", "query_id")


def dropped_with_holes(
    dropped: pl.DataFrame | None, topk: pl.DataFrame | None, k: int
) -> pl.DataFrame | None:
    """The closure's dropped queries, each with its holes named after the reason."""
    if dropped is None or topk is None or dropped.height == 0:
        return dropped
    return (
        dropped.join(hole_counts(topk), on="query_id", how="left", maintain_order="left")
        .with_columns(
            why=pl.when(pl.col("unjudged").is_not_null())
            .then(
                pl.format(
                    "{}; {} unjudged in the runs' top {}: judge them",
                    pl.col("why"),
                    pl.col("unjudged"),
                    pl.lit(k),
                )
            )
            .otherwise(pl.col("why"))
        )
        .select(dropped.columns)
    )
