"""Failure-set overlap, the oracle, and the share of its headroom fusion collects.

A query *fails* for a system when its per-query value is 0: nothing relevant within the cutoff.
For two systems the oracle picks, per query, whichever did better; for a binary measure that is
1 - both_miss / n (31 shared misses of 300: 0.897). Fusion can only promote documents one of the
runs retrieved, so for a measure with a cutoff k and a fused list built from each run's top k,
the shared misses bound what the merge can reach.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import polars as pl


def wide(scores: pl.DataFrame, systems: list[str]) -> pl.DataFrame:
    """query_id x system values (0 where a system has no row for a query)."""
    return (
        scores.filter(pl.col("system").is_in(systems))
        .pivot(on="system", index="query_id", values="value")
        .fill_null(0.0)
    )


def oracle_mean(scores: pl.DataFrame, systems: list[str]) -> float:
    """Mean over queries of the best value any of ``systems`` reached on that query."""
    w = wide(scores, systems)
    if w.height == 0:
        return math.nan
    return float(w.select(pl.max_horizontal(systems).mean()).item())


def pair_overlap(scores: pl.DataFrame, a: str, b: str) -> dict[str, Any]:
    w = wide(scores, [a, b])
    miss_a = pl.col(a) == 0
    miss_b = pl.col(b) == 0
    row = w.select(
        miss_a=miss_a.sum(),
        miss_b=miss_b.sum(),
        both_miss=(miss_a & miss_b).sum(),
        either_miss=(miss_a | miss_b).sum(),
        oracle=pl.max_horizontal(a, b).mean(),
    ).row(0, named=True)
    return {
        "a": a,
        "b": b,
        **{k: int(v) for k, v in row.items() if k != "oracle"},
        "oracle": float(row["oracle"]),
    }


def failure_overlap(scores: pl.DataFrame, systems: list[str]) -> list[dict[str, Any]]:
    """For every pair: miss_a, miss_b, both_miss, either_miss (the union) and the pair's oracle."""
    return [pair_overlap(scores, a, b) for a, b in itertools.combinations(systems, 2)]


def headroom_collected(fused: float, best_single: float, oracle: float) -> float | None:
    """(fused - best single) / (oracle - best single): the share of the gap between the best
    single system and the per-query oracle that fusion closes (docs/background.md#failure-overlap),
    e.g. (0.86 - 0.74) / (0.897 - 0.74) = 0.76. None when there is no headroom."""
    gap = oracle - best_single
    if not gap > 1e-12:
        return None
    return (fused - best_single) / gap


def rescued_misses(scores: pl.DataFrame, a: str, b: str, fused: str) -> int:
    """Queries both ``a`` and ``b`` miss (value 0) on which ``fused`` scores above 0."""
    w = wide(scores, [a, b, fused])
    return int(w.select(((pl.col(a) == 0) & (pl.col(b) == 0) & (pl.col(fused) > 0)).sum()).item())


def stratum_overlap(scores: pl.DataFrame, strata: pl.DataFrame, a: str, b: str) -> pl.DataFrame:
    """Per stratum: n, miss_a, miss_b, both_miss, and the bound on both_miss the two miss counts
    give without any set arithmetic: two sets share at most the smaller one (10 and 11 misses:
    at most 10 queries neither system rescues)."""
    w = wide(scores, [a, b]).join(strata, on="query_id", how="inner")
    miss_a = pl.col(a) == 0
    miss_b = pl.col(b) == 0
    return (
        w.group_by("stratum", maintain_order=True)
        .agg(
            n=pl.len(), miss_a=miss_a.sum(), miss_b=miss_b.sum(), both_miss=(miss_a & miss_b).sum()
        )
        .with_columns(both_miss_bound=pl.min_horizontal("miss_a", "miss_b"))
    )


ONLY_A, ONLY_B, BOTH = "only a misses", "only b misses", "both miss"


def pair_queries(scores: pl.DataFrame, a: str, b: str, fused: str | None = None) -> pl.DataFrame:
    """The queries behind one pair's overlap counts: ``query_id, case, a, b, fused, rescued``,
    ``case`` one of ONLY_A (``a`` scores 0, ``b`` does not), ONLY_B, BOTH; ``rescued`` is True
    when the fused system scores above 0 on it (null without one). Both-miss queries first,
    then only-a, then only-b, each by id: the counts of :func:`pair_overlap`, query by query."""
    systems = [a, b] + ([fused] if fused and fused not in (a, b) else [])
    w = wide(scores, systems)
    miss_a, miss_b = pl.col(a) == 0, pl.col(b) == 0
    case = (
        pl.when(miss_a & miss_b)
        .then(pl.lit(BOTH))
        .when(miss_a)
        .then(pl.lit(ONLY_A))
        .otherwise(pl.lit(ONLY_B))
    )
    order = pl.when(miss_a & miss_b).then(0).when(miss_a).then(1).otherwise(2)
    f = pl.col(fused) if fused else pl.lit(None, dtype=pl.Float64)
    return (
        w.filter(miss_a | miss_b)
        .with_columns(case=case, _order=order, fused=f)
        .with_columns(rescued=pl.col("fused") > 0)
        .sort("_order", "query_id")
        .select(
            pl.col("query_id").cast(pl.Utf8),
            "case",
            pl.col(a).alias("a"),
            pl.col(b).alias("b"),
            "fused",
            "rescued",
        )
    )
