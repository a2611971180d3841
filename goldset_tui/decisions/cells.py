"""Per-stratum summaries in the form the stratified estimator takes (``eval.weighting.Cell``),
so every figure of the decision block carries the report's own interval machinery."""

from __future__ import annotations

import math

import polars as pl

from goldset_tui.eval.intervals import DEFAULT_CONFIDENCE, SCORE_T, STUDENT_T, at_bound
from goldset_tui.eval.weighting import Cell, WeightedEstimate, stratified_estimate

Stats = tuple[int, float, float, float]  # n, mean, variance (ddof 1; nan below 2), share at 0/1


def stratum_stats(values: pl.DataFrame) -> dict[str, Stats]:
    """``values``: stratum, value (one row per query) -> stratum: (n, mean, var, at_bounds)."""
    rows = values.group_by("stratum").agg(
        n=pl.len(),
        mean=pl.col("value").mean(),
        var=pl.col("value").var(ddof=1),
        at_bounds=at_bound(pl.col("value")).mean(),
    )
    return {
        str(s): (int(n), float(m), math.nan if v is None else float(v), float(b))
        for s, n, m, v, b in rows.select("stratum", "n", "mean", "var", "at_bounds").iter_rows()
    }


def mixture_estimate(
    parts: dict[str, float],
    stats: dict[str, Stats],
    *,
    method: str,
    population: dict[str, float] | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> WeightedEstimate:
    """sum_g parts[g] x mean_g with the stratified interval of ``method`` (strata sampled
    independently, so each part is its own cell). Parts with no queries are left out; a part
    of weight 0 adds nothing."""
    cells = [
        Cell(w, *stats[g][:3], (population or {}).get(g), stats[g][3])
        for g, w in parts.items()
        if w > 0 and g in stats
    ]
    return stratified_estimate(cells, confidence, method=method)


def method_of_values(values: pl.Series, table_method: str, *, bounded: bool) -> str:
    """The table's method while the values are still one system's (0/1 for a binary measure);
    a mixture of systems' values is graded: score-t in [0, 1], Student t for a count."""
    if values.is_in([0.0, 1.0]).all():
        return table_method
    return SCORE_T if bounded else STUDENT_T
