"""The stratified (traffic-weighted) mean of plain stratum means and its interval, and the weighted
difference between two systems.

Stratified estimation (Cochran, *Sampling Techniques*, ch. 5): with traffic shares W_h, stratum
sizes n_h and per-query sample variances s_h^2 (ddof = 1),

    mean = sum_h W_h m_h,    var = sum_h W_h^2 s_h^2 / n_h x (1 - n_h / N_h)

where the finite-population correction (1 - n_h / N_h) applies only when the stratum's population
size N_h (distinct queries of that stratum in the log) is known; otherwise it is 1.

mean +- t x sqrt(var) (Welch-Satterthwaite df, Cochran 5A.6), the interval used until a coverage
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
query difficulty cancels inside each stratum (docs/background.md#paired-comparison). d in [-1, 1]
is carried to (d + 1) / 2, given the score interval there and carried back, so it stays in
[-1, 1]; a stratum of ties keeps one pseudo-query of spread (``DIFFERENCE_PSEUDO_COUNT``). The
mapping and the pseudo-count live in ``intervals`` (:func:`intervals.difference_interval`), shared
with the paired comparison: with one stratum the two give the same interval.

This is the traffic-weighted headline of a strata file that carries no counts or inclusion
probabilities (a hand-made one): the plain stratum means weighted by traffic share, which is the
per-search rate only when each stratum was sampled in proportion to its traffic. With the counts
and probabilities ``goldset sample`` writes, ``eval.headline`` estimates the per-search rate and
the distinct-query mean from the draw itself (Hajek ratios).

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
    wilson_form,
    z_value,
)
from goldset_tui.eval.paired_interval import PairedCell, stratified_paired_rates
from goldset_tui.eval.t_distribution import t_quantile


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
    # Shares that sum to 1 only in floating point (0.31 + 0.22 + ... = 1.0000000000000002) must
    # not carry the upper end past 1.
    top = 1.0 if abs(total - 1.0) < 1e-9 else total
    return WeightedEstimate(
        mean=mean, se=se, df=df, ci=(lo * total, min(top, hi * total)), n_effective=n_eff
    )


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
    binary: bool = False,
) -> WeightedEstimate:
    """Traffic-weighted mean of a - b, paired per query within each stratum, with its interval.

    For a 0/1 measure (``binary``) each stratum's difference is a difference of paired rates:
    its Tango interval, the strata combined by ``paired_interval.stratified_paired_rates`` (with
    one stratum, the interval ``goldset compare`` prints). ``se`` is then the plain standard
    error sqrt(sum_h W_h^2 (1 - n_h / N_h) ((a_h + b_h) / n_h - d_h^2) / n_h), for reference.

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
    if binary:
        return _paired_rates(wide, traffic, population, confidence)
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


def _paired_rates(
    wide: pl.DataFrame,
    traffic: pl.DataFrame,
    population: dict[str, float] | None,
    confidence: float,
) -> WeightedEstimate:
    """``weighted_difference`` of a 0/1 measure: ``wide`` holds stratum, value = a - b."""
    counts = (
        wide.group_by("stratum")
        .agg(
            n=pl.len(),
            only_a=(pl.col("value") > 0.5).sum(),
            only_b=(pl.col("value") < -0.5).sum(),
        )
        .join(traffic.select("stratum", "share"), on="stratum", how="inner")
        .sort("stratum")
    )
    cells = [
        PairedCell(float(share), int(n), int(a), int(b), (population or {}).get(stratum))
        for stratum, n, a, b, share in counts.select(
            "stratum", "n", "only_a", "only_b", "share"
        ).iter_rows()
    ]
    mean, ci = stratified_paired_rates(cells, confidence)
    var = math.fsum(
        c.share**2
        * _fpc(c.n, c.population)
        * ((c.only_a + c.only_b) / c.n - ((c.only_a - c.only_b) / c.n) ** 2)
        / c.n
        for c in cells
        if c.n > 0
    )
    df = float(sum(c.n for c in cells) - len(cells)) if cells else math.nan
    return WeightedEstimate(mean=mean, se=math.sqrt(max(0.0, var)), df=df, ci=ci)
