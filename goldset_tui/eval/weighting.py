"""Weighted headlines and their intervals: the traffic-weighted (stratified) mean, the weighted
difference between two systems, and the design-weighted (Hajek) mean from inclusion probabilities.

Stratified estimation (Cochran, *Sampling Techniques*, ch. 5): with traffic shares W_h, stratum
sizes n_h and per-query sample variances s_h^2 (ddof = 1),

    mean = sum_h W_h m_h,    var = sum_h W_h^2 s_h^2 / n_h x (1 - n_h / N_h)

where the finite-population correction (1 - n_h / N_h) applies only when the stratum's population
size N_h (distinct queries of that stratum in the log) is known; otherwise it is 1.

mean +- t x sqrt(var) (Welch-Satterthwaite df, Cochran 5A.6), the interval used until issue 10's
audit, leaves [0, 1] (Success@3 on the sample data: 0.921 to 1.033) and is [1, 1] when every
stratum is at n of n, so it is kept only for measures with no known range (``student-t``). The
report's interval for a measure in [0, 1] is the **stratified score interval**
(:func:`stratified_estimate`): Wilson's formula at the weighted mean with an effective
number of queries n_eff = r (1 - r) / var (Kish's design effect, as Dean & Pagano 2015 apply it
to Wilson), where var and r are taken at each stratum's rate pulled in by z^2 / 2 pseudo-queries
each side (Agresti-Coull): the variance floor that keeps a stratum at 7 of 7 from looking exact.
Graded values scale each stratum's term by its dispersion (``intervals.dispersion``, as the
``score-t`` stratum interval does); the quantile is t at the Welch-Satterthwaite df. With one
stratum it is exactly that stratum's Wilson (t for z) or score-t interval. Only a census (every
1 - n_h / N_h = 0) gives a point. Chosen by the coverage study in bench/interval_coverage.py
(docs/report.md); tests/unit/report/test_report_weighted_coverage.py holds it to 93%.

A weighted *difference* of two systems pairs them per query within each stratum (d = a - b): the
query difficulty cancels inside each stratum (seed 000: every comparison is paired). d in [-1, 1]
is carried to (d + 1) / 2, given the score interval there and carried back, so it stays in
[-1, 1]; a stratum of ties keeps one pseudo-query of spread (``DIFFERENCE_PSEUDO_COUNT``). The
mapping and the pseudo-count live in ``intervals`` (:func:`intervals.difference_interval`), shared
with the paired comparison: with one stratum the two give the same interval.

The Hajek estimate sum(y / pi) / sum(1 / pi) weights each query by the inverse of the probability
that the sampling design drew it (``inclusion_probability`` in the strata file). It answers "the
mean over the log's queries as the design drew them", the stratum-weighted headline answers "the
mean over traffic as the shares weight the strata"; the report shows both and says which is which.

Pure Python over Polars frames; the caller guarantees shares and probabilities were validated.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import polars as pl

from goldset_tui.eval.intervals import (
    DEFAULT_CONFIDENCE,
    DIFFERENCE_DISCRETE,
    DIFFERENCE_PSEUDO_COUNT,
    DISPERSION_PSEUDO_COUNT,
    SCORE_T,
    STUDENT_T,
    WILSON,
    WILSON_CC,
    difference_to_unit,
    dispersion,
    t_quantile,
    wilson_form,
    z_value,
)
from goldset_tui.scalar import as_float


@dataclass(frozen=True)
class WeightedEstimate:
    """A stratified estimate: the weighted mean, its standard error, degrees of freedom and the
    95% (or ``confidence``) interval; ``ci`` is (nan, nan) when no stratum has a variance.
    ``n_effective`` is the simple random sample as precise (the bounded methods only)."""

    mean: float
    se: float
    df: float
    ci: tuple[float, float]
    n_effective: float = math.nan


class Cell(NamedTuple):
    """One stratum: traffic share, n, mean, sample variance (ddof = 1), population N (None:
    unknown, no correction) and the share of its values at 0 or 1 (for differences: at -1, 0
    or 1), which decides how far its dispersion is shrunk (``intervals.dispersion``)."""

    share: float
    n: int
    mean: float
    var: float
    population: float | None
    at_bounds: float = 1.0


def _fpc(n: int, population: float | None) -> float:
    return max(0.0, 1.0 - n / population) if population else 1.0


def stratified_estimate(
    cells: Sequence[tuple[float, int, float, float, float | None] | Cell],
    confidence: float = DEFAULT_CONFIDENCE,
    *,
    method: str = SCORE_T,
    pseudo_count: float = DISPERSION_PSEUDO_COUNT,
) -> WeightedEstimate:
    """The weighted mean of ``cells`` with its interval, by ``method``: ``wilson`` (0/1 values)
    and ``score-t`` (values in [0, 1]) give the bounded stratified score interval (module
    docstring), ``student-t`` the plain mean +- t x se for a measure with no known range.

    A stratum of one query has no variance (nan): the interval is then undefined rather than
    pretending that stratum is exact.
    """
    z_value(confidence)  # validates confidence
    rows = [Cell(*c) for c in cells]
    mean = sum(c.share * c.mean for c in rows)
    if not rows or any(c.n < 2 or not math.isfinite(c.var) for c in rows):
        return WeightedEstimate(mean=math.nan, se=math.nan, df=math.nan, ci=(math.nan, math.nan))
    if method == STUDENT_T:
        return _student_t(rows, mean, confidence)
    return _bounded(
        rows, mean, confidence, binary=method in (WILSON, WILSON_CC), pseudo_count=pseudo_count
    )


def _student_t(rows: list[Cell], mean: float, confidence: float) -> WeightedEstimate:
    terms = [(c.share**2 * c.var / c.n * _fpc(c.n, c.population), c.n) for c in rows]
    var = sum(t for t, _ in terms)
    df_den = sum(t * t / (n - 1) for t, n in terms)
    if var <= 0.0 or df_den <= 0.0:
        # No known range, so no floor to put under a spread of zero: the point, said as such.
        return WeightedEstimate(mean=mean, se=0.0, df=math.inf, ci=(mean, mean))
    df = var * var / df_den
    t = t_quantile(0.5 + confidence / 2.0, df)
    se = math.sqrt(var)
    return WeightedEstimate(mean=mean, se=se, df=df, ci=(mean - t * se, mean + t * se))


def _bounded(
    rows: list[Cell], mean: float, confidence: float, *, binary: bool, pseudo_count: float
) -> WeightedEstimate:
    """The stratified score interval on [0, total share] (see the module docstring)."""
    total = sum(c.share for c in rows)
    if total <= 0.0:
        return WeightedEstimate(mean=mean, se=math.nan, df=math.nan, ci=(math.nan, math.nan))
    z = z_value(confidence)
    centre_sum = 0.0
    var = 0.0
    df_den = 0.0
    for c in rows:
        w = c.share / total
        # A difference's ties at 1/2 weigh as before (``intervals.dispersion``).
        inside = pseudo_count != DIFFERENCE_PSEUDO_COUNT
        phi = (
            1.0
            if binary
            else dispersion(c.n, c.mean, c.var, c.at_bounds, pseudo_count, inside=inside)
        )
        # The stratum's rate pulled in by z^2 / 2 pseudo-observations each side (Agresti-Coull,
        # the centre of its Wilson interval): a stratum at 7 of 7 keeps a variance.
        shrunk = (c.n * c.mean + z * z / 2.0) / (c.n + z * z)
        centre_sum += w * shrunk
        term = w * w * phi * shrunk * (1.0 - shrunk) / c.n * _fpc(c.n, c.population)
        var += term
        df_den += term * term / (c.n - 1)
    p = mean / total
    if var <= 0.0:
        # Every stratum taken in full (finite-population correction 0): no sampling error.
        return WeightedEstimate(
            mean=mean, se=0.0, df=math.inf, ci=(mean, mean), n_effective=math.inf
        )
    n_eff = centre_sum * (1.0 - centre_sum) / var
    df = var * var / df_den if df_den > 0 else math.inf
    q = t_quantile(0.5 + confidence / 2.0, _df_grid(df))
    lo, hi = wilson_form(p, n_eff, q)
    se = math.sqrt(var) * total  # at the shrunk rates: not 0 at 7 of 7
    return WeightedEstimate(mean=mean, se=se, df=df, ci=(lo * total, hi * total), n_effective=n_eff)


def _df_grid(df: float) -> float:
    """Degrees of freedom rounded down to a tenth (a slightly wider t, never narrower), so the
    t quantiles of a table come from a small cache."""
    return max(1.0, math.floor(df * 10.0) / 10.0) if math.isfinite(df) else 1e9


def _cells(
    values: pl.DataFrame,
    traffic: pl.DataFrame,
    population: dict[str, float] | None,
    discrete: list[float],
) -> list[Cell]:
    """``values``: stratum, value (one row per query). Strata without a share are left out (the
    closure checks already report them). ``discrete``: the values whose share is ``at_bounds``."""
    stats = values.group_by("stratum").agg(
        n=pl.len(),
        mean=pl.col("value").mean(),
        var=pl.col("value").var(ddof=1),
        at_bounds=pl.col("value").is_in(discrete).mean(),
    )
    joined = stats.join(traffic.select("stratum", "share"), on="stratum", how="inner")
    return [
        Cell(
            float(share),
            int(n),
            float(mean),
            math.nan if var is None else float(var),
            (population or {}).get(stratum),
            float(at_bounds),
        )
        for stratum, n, mean, var, at_bounds, share in joined.select(
            "stratum", "n", "mean", "var", "at_bounds", "share"
        ).iter_rows()
    ]


def weighted_estimates(
    scores: pl.DataFrame,
    strata: pl.DataFrame,
    traffic: pl.DataFrame,
    *,
    population: dict[str, float] | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
    method: str,
) -> dict[str, WeightedEstimate]:
    """Per system, the traffic-weighted mean of ``scores`` (system, query_id, value) with its
    stratified interval by ``method`` (the table's, ``intervals.method_for``): Wilson-based for a
    0/1 measure, score-t for one in [0, 1], Student t otherwise."""
    joined = scores.join(strata.select("query_id", "stratum"), on="query_id", how="inner")
    out = {}
    for (system,), part in joined.partition_by("system", as_dict=True, maintain_order=True).items():
        cells = _cells(part.select("stratum", "value"), traffic, population, [0.0, 1.0])
        out[str(system)] = stratified_estimate(cells, confidence, method=method)
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
    bounded: bool = True,
) -> WeightedEstimate:
    """Traffic-weighted mean of a - b, paired per query within each stratum, with its interval.

    For a measure in [0, 1] a difference lies in [-1, 1]: it is carried to (d + 1) / 2 in
    [0, 1], given the score-t stratified interval there (ties and +-1 count as the discrete
    values, so a stratum of all ties keeps two pseudo-observations of spread) and carried back,
    so the interval never leaves [-1, 1]. A measure not ``bounded`` in [0, 1] by definition (a
    count) gets the Student t interval."""
    wide = (
        scores.filter(pl.col("system").is_in([a, b]))
        .pivot(on="system", index="query_id", values="value")
        .fill_null(0.0)
        .join(strata.select("query_id", "stratum"), on="query_id", how="inner")
        .select("stratum", value=pl.col(a) - pl.col(b))
    )
    if not bounded:
        return stratified_estimate(
            _cells(wide, traffic, population, []), confidence, method=STUDENT_T
        )
    half = wide.with_columns(value=difference_to_unit(pl.col("value")))
    est = stratified_estimate(
        _cells(half, traffic, population, list(DIFFERENCE_DISCRETE)),
        confidence,
        method=SCORE_T,
        pseudo_count=DIFFERENCE_PSEUDO_COUNT,
    )
    total = sum(c.share for c in _cells(half, traffic, population, []))
    lo, hi = est.ci
    return WeightedEstimate(
        mean=2.0 * est.mean - total,
        se=2.0 * est.se,
        df=est.df,
        ci=(2.0 * lo - total, 2.0 * hi - total),
        n_effective=est.n_effective,
    )


def hajek_means(scores: pl.DataFrame, probabilities: pl.DataFrame) -> dict[str, float]:
    """Per system, sum(value / pi) / sum(1 / pi) over the queries with an inclusion probability
    (``probabilities``: query_id, inclusion_probability)."""
    return {name: e.mean for name, e in hajek_estimates(scores, probabilities).items()}


def hajek_estimates(
    scores: pl.DataFrame,
    probabilities: pl.DataFrame,
    strata: pl.DataFrame | None = None,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    bounds: tuple[float, float] | None = (0.0, 1.0),
    method: str = SCORE_T,
) -> dict[str, WeightedEstimate]:
    """Per system, the Hajek mean with its Taylor-linearised standard error and interval.

    The standard error is what R's ``survey`` package computes for ``svymean(~y, svydesign(ids =
    ~1, strata = ~stratum, probs = ~pi))``: the ratio estimator sum(w y) / sum(w), w = 1 / pi, is
    linearised to z_i = w_i (y_i - mean) / sum(w), and its variance is the **with-replacement**
    approximation V = sum_h V_h, V_h = n_h / (n_h - 1) sum_{i in h} (z_i - zbar_h)^2 over the
    sampling strata h (no finite-population correction: the draw was without replacement, so
    this slightly overstates the variance). For a measure with no known range (``bounds`` None)
    the interval is ``survey``'s mean +- t x se with the design's degrees of freedom n - H
    (``degf``, as ``confint(..., df = degf(design))``).

    For a measure in ``bounds`` ([0, 1]) that symmetric interval leaves the range and is a point
    when every sampled query scores the same (seven queries at nDCG@10 = 1.0): it covered 69-71%
    when a small stratum near 0 or 1 carried the population (bench/interval_coverage.py --only
    design). The interval is then the **stratified score interval** of
    :func:`stratified_estimate`, the traffic-weighted headline's, on one cell per sampling
    stratum: share W_h = sum_{i in h} w_i / sum(w), the stratum's weighted mean, and the
    within-stratum variance n_h V_h / W_h^2 (the design's: with equal probabilities inside a
    stratum it is the plain s_h^2, and the whole is exactly the stratified interval with those
    shares; with one stratum, that stratum's Wilson or ``score-t`` interval), by ``method``
    (``wilson`` for a 0/1 measure, ``score-t`` otherwise). It keeps a width when every query
    scores the same and stays inside the range. The standard error stays the survey's.

    A stratum with a single query has no within-stratum variance (``survey`` stops there too):
    the interval is then nan. Without ``strata`` the whole set is one stratum.
    """
    joined = scores.join(
        probabilities.select("query_id", "inclusion_probability").unique("query_id"),
        on="query_id",
        how="inner",
    )
    if strata is not None:
        joined = joined.join(strata.select("query_id", "stratum"), on="query_id", how="left")
    else:
        joined = joined.with_columns(stratum=pl.lit(""))
    joined = joined.with_columns(
        w=1.0 / pl.col("inclusion_probability"), stratum=pl.col("stratum").fill_null("")
    )
    out: dict[str, WeightedEstimate] = {}
    for (system,), part in joined.partition_by("system", as_dict=True, maintain_order=True).items():
        out[str(system)] = _hajek(part, confidence, bounds, method)
    return out


def _hajek(
    part: pl.DataFrame, confidence: float, bounds: tuple[float, float] | None, method: str
) -> WeightedEstimate:
    total = as_float(part.get_column("w").sum())
    mean = as_float((part.get_column("w") * part.get_column("value")).sum()) / total
    per = (
        part.with_columns(z=pl.col("w") * (pl.col("value") - mean) / total)
        .group_by("stratum")
        .agg(
            n=pl.len(),
            ss=((pl.col("z") - pl.col("z").mean()) ** 2).sum(),
            share=pl.col("w").sum() / total,
            mean=(pl.col("w") * pl.col("value")).sum() / pl.col("w").sum(),
            at_bounds=pl.col("value").is_in(list(bounds or ())).mean(),
        )
        .with_columns(v=pl.col("n") / (pl.col("n") - 1) * pl.col("ss"))
    )
    sizes = per.get_column("n")
    df = float(part.height - per.height)
    if bool((sizes < 2).any()) or df < 1:
        return WeightedEstimate(mean=mean, se=math.nan, df=math.nan, ci=(math.nan, math.nan))
    var = as_float(per.get_column("v").sum())
    se = math.sqrt(max(0.0, var))
    if bounds is None:
        half = t_quantile(0.5 + confidence / 2.0, df) * se
        return WeightedEstimate(mean=mean, se=se, df=df, ci=(mean - half, mean + half))
    low, high = bounds
    span = high - low
    cells = [
        Cell(share, int(n), (m - low) / span, n * v / (share * share) / span**2, None, at)
        for n, share, m, v, at in per.select("n", "share", "mean", "v", "at_bounds").iter_rows()
    ]
    est = stratified_estimate(cells, confidence, method=method)
    lo, hi = est.ci
    return WeightedEstimate(
        mean=mean,
        se=se,
        df=df,
        # The shares sum to 1 up to rounding: an end at 1.0000000000000002 is 1.
        ci=(max(low, low + lo * span), min(high, low + hi * span)),
        n_effective=est.n_effective,
    )
