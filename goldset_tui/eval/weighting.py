"""Weighted headlines and their intervals: the traffic-weighted (stratified) mean, the weighted
difference between two systems, and the design-weighted (Hajek) mean from inclusion probabilities.

Stratified estimation (Cochran, *Sampling Techniques*, ch. 5): with traffic shares W_h, stratum
sizes n_h and per-query sample variances s_h^2 (ddof = 1),

    mean = sum_h W_h m_h,    var = sum_h W_h^2 s_h^2 / n_h x (1 - n_h / N_h)

where the finite-population correction (1 - n_h / N_h) applies only when the stratum's population
size N_h (distinct queries of that stratum in the log) is known; otherwise it is 1. The interval is
mean +- t x sqrt(var) with the Welch-Satterthwaite degrees of freedom (Cochran 5A.6), so a headline
resting on a few small strata is not given normal-theory confidence. A weighted *difference* of two
systems pairs them per query within each stratum (d = a - b) and runs the same formula on d: the
query difficulty cancels inside each stratum (seed 000: every comparison is paired).

The Hajek estimate sum(y / pi) / sum(1 / pi) weights each query by the inverse of the probability
that the sampling design drew it (``inclusion_probability`` in the strata file). It answers "the
mean over the log's queries as the design drew them", the stratum-weighted headline answers "the
mean over traffic as the shares weight the strata"; the report shows both and says which is which.

Pure Python over Polars frames; the caller guarantees shares and probabilities were validated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import polars as pl

from goldset_tui.eval.intervals import DEFAULT_CONFIDENCE, t_quantile, z_value


@dataclass(frozen=True)
class WeightedEstimate:
    """A stratified estimate: the weighted mean, its standard error, degrees of freedom and the
    95% (or ``confidence``) interval; ``ci`` is (nan, nan) when no stratum has a variance."""

    mean: float
    se: float
    df: float
    ci: tuple[float, float]


def stratified_estimate(
    cells: list[tuple[float, int, float, float, float | None]],
    confidence: float = DEFAULT_CONFIDENCE,
) -> WeightedEstimate:
    """``cells``: one ``(share, n_h, mean_h, var_h, population_h or None)`` per stratum.

    A stratum of one query has no variance (nan): the interval is then undefined rather than
    pretending that stratum is exact.
    """
    z_value(confidence)  # validates confidence
    mean = 0.0
    var = 0.0
    df_den = 0.0
    for share, n, m, s2, population in cells:
        mean += share * m
        if n < 2 or not math.isfinite(s2):
            return WeightedEstimate(
                mean=math.nan, se=math.nan, df=math.nan, ci=(math.nan, math.nan)
            )
        fpc = max(0.0, 1.0 - n / population) if population else 1.0
        term = share * share * s2 / n * fpc
        var += term
        df_den += term * term / (n - 1)
    se = math.sqrt(var)
    if var <= 0.0 or df_den <= 0.0:
        # Every stratum constant (all hits, say): nothing varies, the interval is the point.
        return WeightedEstimate(mean=mean, se=0.0, df=math.inf, ci=(mean, mean))
    df = var * var / df_den
    t = t_quantile(0.5 + confidence / 2.0, df)
    return WeightedEstimate(mean=mean, se=se, df=df, ci=(mean - t * se, mean + t * se))


def _cells(
    values: pl.DataFrame, traffic: pl.DataFrame, population: dict[str, float] | None
) -> list[tuple[float, int, float, float, float | None]]:
    """``values``: stratum, value (one row per query). Strata without a share are left out (the
    closure checks already report them)."""
    stats = values.group_by("stratum").agg(
        n=pl.len(), mean=pl.col("value").mean(), var=pl.col("value").var(ddof=1)
    )
    joined = stats.join(traffic.select("stratum", "share"), on="stratum", how="inner")
    return [
        (
            float(share),
            int(n),
            float(mean),
            math.nan if var is None else float(var),
            (population or {}).get(stratum),
        )
        for stratum, n, mean, var, share in joined.select(
            "stratum", "n", "mean", "var", "share"
        ).iter_rows()
    ]


def weighted_estimates(
    scores: pl.DataFrame,
    strata: pl.DataFrame,
    traffic: pl.DataFrame,
    *,
    population: dict[str, float] | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, WeightedEstimate]:
    """Per system, the traffic-weighted mean of ``scores`` (system, query_id, value) with its
    stratified interval."""
    joined = scores.join(strata.select("query_id", "stratum"), on="query_id", how="inner")
    out = {}
    for (system,), part in joined.partition_by("system", as_dict=True, maintain_order=True).items():
        cells = _cells(part.select("stratum", "value"), traffic, population)
        out[str(system)] = stratified_estimate(cells, confidence)
    return out


def weighted_difference(
    scores: pl.DataFrame,
    strata: pl.DataFrame,
    traffic: pl.DataFrame,
    a: str,
    b: str,
    *,
    population: dict[str, float] | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> WeightedEstimate:
    """Traffic-weighted mean of a - b, paired per query within each stratum, with its interval."""
    wide = (
        scores.filter(pl.col("system").is_in([a, b]))
        .pivot(on="system", index="query_id", values="value")
        .fill_null(0.0)
        .join(strata.select("query_id", "stratum"), on="query_id", how="inner")
        .select("stratum", value=pl.col(a) - pl.col(b))
    )
    return stratified_estimate(_cells(wide, traffic, population), confidence)


def hajek_means(scores: pl.DataFrame, probabilities: pl.DataFrame) -> dict[str, float]:
    """Per system, sum(value / pi) / sum(1 / pi) over the queries with an inclusion probability
    (``probabilities``: query_id, inclusion_probability)."""
    joined = scores.join(
        probabilities.select("query_id", "inclusion_probability").unique("query_id"),
        on="query_id",
        how="inner",
    )
    weights = 1.0 / pl.col("inclusion_probability")
    means = joined.group_by("system", maintain_order=True).agg(
        hajek=(pl.col("value") * weights).sum() / weights.sum()
    )
    return {str(s): float(v) for s, v in means.iter_rows()}
