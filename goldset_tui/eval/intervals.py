"""Intervals for a stratum's mean: Wilson with continuity correction for 0/1 measures, a
dispersion-scaled score interval with a Student t quantile for graded measures in [0, 1], the plain
t interval for anything else.

The hand arithmetic of docs/background.md#stratum-depth reads a stratum of 18 queries with 8 hits
through the normal-approximation (Wald) interval: se = sqrt(0.44 x 0.56 / 18) = 0.117, so 0.21
to 0.67. The Wald interval misbehaves on small n and rates near 0 or 1 (it can leave [0, 1] and
collapses to zero width at 0 of n), which is exactly where small strata live, so the report uses
Wilson's score interval for binary measures and keeps Wald only to show that arithmetic. Graded
means (nDCG, AP, RR) used a percentile bootstrap, which covered only 87% at 7 queries;
:func:`score_interval` replaces it, chosen by the coverage study in bench/interval_coverage.py
(table in docs/report.md) and held to 93% or more by tests/unit/report/test_report_coverage.py.
The bootstrap stays for callers.
The mean of paired differences a - b of a measure in [0, 1] gets the same score interval on
(d + 1) / 2 (:func:`difference_interval`), which replaced the paired comparison's percentile
bootstrap (a point when every query moved the same way; bench/interval_coverage.py --only paired).

Pure functions, no numpy or scipy: the standard library's NormalDist gives the normal quantile,
the Student t quantile comes from the regularized incomplete beta function (``t_distribution.py``,
checked against scipy), and every interval is closed form from a cell's count, mean, variance and
share at 0 or 1 (:func:`summary`), so the stratified table computes them all from one group-by.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import TypeVar

import polars as pl

from goldset_tui.eval.defaults import REPORT_SAMPLES

# t_quantile is named here too: docs/report.md imports it from this module, as notebooks may.
from goldset_tui.eval.t_distribution import t_quantile as t_quantile
from goldset_tui.scalar import as_float

DEFAULT_CONFIDENCE = 0.95
DEFAULT_SEED = 0


def z_value(confidence: float = DEFAULT_CONFIDENCE) -> float:
    """Two-sided normal quantile: 1.959964 for 95%."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def _check_counts(hits: int, n: int) -> None:
    if n < 0 or hits < 0 or hits > n:
        raise ValueError(f"need 0 <= hits <= n, got hits={hits}, n={n}")


def proportion_se(hits: int, n: int) -> float:
    """Standard error of a proportion, sqrt(p(1-p)/n) (0.092 at p=0.7, n=25)."""
    _check_counts(hits, n)
    if n == 0:
        return math.nan
    p = hits / n
    return math.sqrt(p * (1.0 - p) / n)


def standard_error(values: Sequence[float] | pl.Series) -> float:
    """Standard error of a mean, with the sample standard deviation (n - 1)."""
    s = (
        pl.Series(values, dtype=pl.Float64)
        if not isinstance(values, pl.Series)
        else values.cast(pl.Float64)
    )
    if s.len() < 2:
        return math.nan
    return as_float(s.std(ddof=1)) / math.sqrt(s.len())


def _series(values: Sequence[float] | pl.Series) -> pl.Series:
    if isinstance(values, pl.Series):
        return values.cast(pl.Float64)
    return pl.Series("v", values, dtype=pl.Float64)


def wald(hits: int, n: int, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """Normal-approximation interval p +- z*se, the hand arithmetic (not clipped to [0, 1])."""
    _check_counts(hits, n)
    if n == 0:
        return (math.nan, math.nan)
    p = hits / n
    half = z_value(confidence) * proportion_se(hits, n)
    return (p - half, p + half)


def wilson(hits: int, n: int, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval for ``hits`` successes out of ``n`` (always inside [0, 1])."""
    _check_counts(hits, n)
    if n == 0:
        return (math.nan, math.nan)
    z = z_value(confidence)
    p = hits / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = (z / (1 + z2 / n)) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # Rounding can push the ends a hair past the exact bounds at 0 or n hits.
    return (max(0.0, centre - half), min(1.0, centre + half))


def wilson_cc(hits: int, n: int, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """Wilson's score interval with Yates' continuity correction (Newcombe 1998, method 4): the
    report's interval for a stratum's rate of a 0/1 measure.

    Plain Wilson covers 95% on average but not at every rate: where only one or two misses are
    likely (a rate near 0 or 1 in a small stratum) its exact coverage falls to 0.83-0.85 at 5-12
    queries and 0.92 at 100. The half-query correction keeps the exact coverage at 0.95 or more on
    every rate from 0.02 to 0.99 at 5, 7, 12, 18, 40 and 100 queries, a little narrower than
    Clopper-Pearson at up to 18 queries; the mid-p interval, narrower still, falls to 0.92
    (bench/interval_coverage.py --only binary, docs/report.md). Equal to
    ``scipy.stats.binomtest(hits, n).proportion_ci(method="wilsoncc")``."""
    _check_counts(hits, n)
    if n == 0:
        return (math.nan, math.nan)
    return wilson_cc_at(hits / n, n, confidence)


def wilson_cc_at(p: float, n: int, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """``wilson_cc`` for a share ``p`` of ``n`` that need not be a whole count over n: the
    interval a rate ``p`` would carry after ``n`` checks (how many checks would settle a
    question, before they are made)."""
    z = z_value(confidence)
    z2 = z * z
    q = 1.0 - p
    denominator = 2.0 * (n + z2)
    lo, hi = 0.0, 1.0
    if p > 0.0:
        root = math.sqrt(max(0.0, z2 - 2.0 - 1.0 / n + 4.0 * p * (n * q + 1.0)))
        lo = max(0.0, (2.0 * n * p + z2 - 1.0 - z * root) / denominator)
    if p < 1.0:
        root = math.sqrt(max(0.0, z2 + 2.0 - 1.0 / n + 4.0 * p * (n * q - 1.0)))
        hi = min(1.0, (2.0 * n * p + z2 + 1.0 + z * root) / denominator)
    return (lo, hi)


def bootstrap_mean_ci(
    values: Sequence[float] | pl.Series,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    samples: int = REPORT_SAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean: resample with replacement ``samples`` times.

    All resamples are drawn in one ``Series.sample`` call and averaged row-wise after a reshape,
    so the cost is one vectorised pass over n x samples values.
    """
    s = (
        pl.Series("v", values, dtype=pl.Float64)
        if not isinstance(values, pl.Series)
        else values.cast(pl.Float64)
    )
    n = s.len()
    if n == 0:
        return (math.nan, math.nan)
    if samples < 1:
        raise ValueError("samples must be at least 1")
    z_value(confidence)  # validates confidence
    drawn = s.sample(n=n * samples, with_replacement=True, seed=seed)
    # One row per resample: a fixed-width array column whose row means are the bootstrap means.
    means = drawn.reshape((samples, n)).arr.mean()
    alpha = (1.0 - confidence) / 2.0
    lo = means.quantile(alpha, interpolation="linear")
    hi = means.quantile(1.0 - alpha, interpolation="linear")
    return (as_float(lo), as_float(hi))


def t_value(n: int, confidence: float = DEFAULT_CONFIDENCE) -> float:
    """Two-sided Student t quantile for a mean of ``n`` values (df = n - 1)."""
    z_value(confidence)  # validates confidence
    if n < 2:
        return math.nan
    return t_quantile(0.5 + confidence / 2.0, float(n - 1))


def student_t(
    values: Sequence[float] | pl.Series, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float]:
    """mean +- t(n - 1) x s / sqrt(n), the textbook interval for a mean of per-query values."""
    n, mean, var, _ = summary(values)
    return student_t_from(n, mean, var, confidence)


def student_t_from(
    n: int, mean: float, var: float, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float]:
    """:func:`student_t` from the count, mean and sample variance (ddof = 1)."""
    if n < 2:
        return (math.nan, math.nan)
    half = t_value(n, confidence) * math.sqrt(var / n)
    return (mean - half, mean + half)


# A value within a few rounding steps of 0 or 1 sits at the bound: a perfect ranking's nDCG can
# come out 0.9999999999999998 when its sums run in another order, and counted "inside" it
# would move a small stratum's score interval by several points.
BOUND_TOLERANCE = 1e-12


def at_bound(value: pl.Expr) -> pl.Expr:
    """Whether each value lies at 0 or 1, to within ``BOUND_TOLERANCE``."""
    return (value.abs() <= BOUND_TOLERANCE) | ((value - 1.0).abs() <= BOUND_TOLERANCE)


def summary(values: Sequence[float] | pl.Series) -> tuple[int, float, float, float]:
    """(n, mean, sample variance with ddof = 1, share of values at 0 or 1, ``at_bound``); nan
    where undefined."""
    s = _series(values)
    n = s.len()
    mean = float(s.mean()) if n else math.nan  # type: ignore[arg-type]
    var = float(s.var(ddof=1)) if n > 1 else math.nan  # type: ignore[arg-type]
    at_bounds = (
        float(s.to_frame("v").select(at_bound(pl.col("v")).mean()).item()) if n else math.nan
    )
    return n, mean, var, at_bounds


# Pseudo-observations at the largest variance a [0, 1] value can have, two for a stratum whose
# values all sit at 0 or 1, none for one whose values all lie inside: the spread of a stratum of
# mostly zeros is estimated from its few non-zero values, and when those happen to lie close
# together the estimate is far too small and the interval needle-thin. Chosen by
# bench/interval_coverage.py (docs/report.md): no pseudo-count leaves 85%-zeros strata of 18 at
# 0.92; a flat 2 fixes that but over-covers continuous scores at 7 queries (0.99-1.00, too wide);
# 2 x the share at the bounds keeps every row at 0.93 or more and the intervals 5% narrower.
DISPERSION_PSEUDO_COUNT = 2.0


def score_interval(
    values: Sequence[float] | pl.Series, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float]:
    """Interval for the mean of per-query values in [0, 1] (nDCG, AP, RR, graded recall).

    Wilson's score interval, with two changes that carry it from hits to graded values: the
    binomial variance mu(1 - mu) is scaled by the observed dispersion phi = s^2 / (m(1 - m))
    (a quasi-binomial model: n becomes the effective n / phi), shrunk toward 1 by up to two
    pseudo-observations (in proportion to the share of values at 0 or 1); and the normal
    quantile becomes Student's t with n - 1 degrees of freedom.
    Like Wilson it stays inside [0, 1] and keeps a width at a mean of 0 or 1, where a stratum full
    of zeros lives; at 7 queries the percentile bootstrap and the t interval both under-cover
    there (bench/interval_coverage.py).
    """
    n, mean, var, at_bounds = summary(values)
    return score_from(n, mean, var, at_bounds, confidence)


def score_from(
    n: int,
    mean: float,
    var: float,
    at_bounds: float,
    confidence: float = DEFAULT_CONFIDENCE,
    pseudo_count: float = DISPERSION_PSEUDO_COUNT,
    *,
    inside: bool = True,
) -> tuple[float, float]:
    """:func:`score_interval` from the count, mean, sample variance (ddof = 1) and the share of
    values exactly 0 or 1 (``inside``: see :func:`dispersion`)."""
    if n < 2:
        return (math.nan, math.nan)
    n_eff = n / dispersion(n, mean, var, at_bounds, pseudo_count, inside=inside)
    return wilson_form(mean, n_eff, t_value(n, confidence))


# --- differences of a measure in [0, 1] -----------------------------------------------------
# d = a - b lies in [-1, 1]; u = (d + 1) / 2 lies in [0, 1] and gets the score interval there,
# with ties (u = 0.5) and flips (u = 0 or 1) as its discrete values and one pseudo-query of full
# spread where all of them sit (seven tied queries do not show the eighth ties). The paired
# comparison (``stats.paired_comparison``) and the traffic-weighted difference
# (``weighting.weighted_difference``, one cell per stratum) both use these; with one stratum the
# two give the same interval. The pseudo-count was chosen by bench/interval_coverage.py
# (docs/report.md): two widened every interval by up to a quarter for no coverage needed; a half
# fell to 0.945 where a small stratum carried the traffic and one system was truly ahead there.
DIFFERENCE_PSEUDO_COUNT = 1.0
DIFFERENCE_DISCRETE = (0.0, 0.5, 1.0)  # -1, 0 and +1 carried to [0, 1]


_Diff = TypeVar("_Diff", float, pl.Series, pl.Expr)


def difference_to_unit(d: _Diff) -> _Diff:
    """A difference in [-1, 1] carried to [0, 1] (a value, a series or a Polars expression)."""
    return (d + 1.0) / 2.0


def difference_interval(
    diffs: Sequence[float] | pl.Series, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float]:
    """Interval for the mean of per-query differences ``diffs`` of a measure in [0, 1]: the score
    interval of (d + 1) / 2 carried back to [-1, 1] (see above). Never leaves [-1, 1] and keeps a
    width when every difference is the same (7 of 7 queries from 0 to 1, or all ties); (nan, nan)
    below two queries."""
    u = difference_to_unit(_series(diffs))
    n = u.len()
    if n < 2:
        return (math.nan, math.nan)
    mean, var = as_float(u.mean()), as_float(u.var(ddof=1))
    at = as_float(u.is_in(list(DIFFERENCE_DISCRETE)).mean())
    lo, hi = score_from(n, mean, var, at, confidence, DIFFERENCE_PSEUDO_COUNT, inside=False)
    return (max(-1.0, 2.0 * lo - 1.0), min(1.0, 2.0 * hi - 1.0))


def dispersion(
    n: int,
    mean: float,
    var: float,
    at_bounds: float,
    pseudo_count: float = DISPERSION_PSEUDO_COUNT,
    *,
    inside: bool = True,
) -> float:
    """phi = s^2 / (m(1 - m)), how much less a graded value varies than a hit would at the same
    mean, shrunk toward 1 by ``pseudo_count`` x ``at_bounds`` pseudo-observations.

    ``inside`` (a stratum's graded values): the pseudo-observations weigh against the values that
    lie strictly inside (0, 1), n (1 - at_bounds), not against all n. Values at 0 or 1 say nothing
    about how much less than a hit a graded value varies; that rests on the few in between. Weighed
    against n, the pseudo-observations faded with n while those few stayed few, and a stratum of
    95-97% zeros or ones covered 0.90-0.92 at 40-100 queries (2 or 3 values inside, close together
    by chance, so phi far too small); weighed against the values inside, every such row holds
    0.95 or more, for 6% more width on average (bench/interval_coverage.py --only scoret,
    docs/report.md). Not ``inside`` (a difference's (d + 1) / 2, whose ties at 1/2 are discrete
    values too): against n, as before.

    A stratum with no spread at all (every value the same) gets the full pseudo-count whatever
    its values: seven queries that all scored 0.5 do not show that the next one will."""
    m = mean
    phi = var / (m * (1.0 - m)) if 0.0 < m < 1.0 else 1.0
    pseudo = pseudo_count * (1.0 if var <= 0.0 else at_bounds)
    base = n * (1.0 - at_bounds) if inside else float(n)
    if base + pseudo <= 0.0:
        return 1.0
    return (base * phi + pseudo) / (base + pseudo)


def wilson_form(p: float, n_eff: float, q: float) -> tuple[float, float]:
    """Wilson's score interval for an estimate ``p`` in [0, 1] resting on ``n_eff`` effective
    observations, with quantile ``q`` (1.96, or a Student t quantile); inside [0, 1] and of
    positive width at p = 0 or 1 for any finite ``n_eff``."""
    if math.isinf(n_eff):
        return (p, p)
    q2 = q * q
    centre = (p + q2 / (2 * n_eff)) / (1 + q2 / n_eff)
    half = (q / (1 + q2 / n_eff)) * math.sqrt(max(0.0, p * (1 - p)) / n_eff + q2 / (4 * n_eff**2))
    return (max(0.0, centre - half), min(1.0, centre + half))


WILSON = "wilson"
WILSON_CC = "wilson-cc"
SCORE_T = "score-t"
STUDENT_T = "student-t"
DIFFERENCE_SCORE = "difference-score-t"
METHOD_TEXT = {
    WILSON: "Wilson score interval (binary measure)",
    WILSON_CC: "Wilson score interval with continuity correction (binary measure)",
    SCORE_T: "score interval for a mean in [0, 1], dispersion-scaled, Student t quantile",
    STUDENT_T: "Student t interval of the mean",
    DIFFERENCE_SCORE: "score interval of (d + 1) / 2 for a difference d in [-1, 1], carried back",
}


def method_for(*, binary: bool, bounded: bool = True) -> str:
    """The interval a mean carries, from what the measure *is* (``eval.measure_kind``), never
    from the values it took: ``wilson-cc`` for a binary measure, ``score-t`` for one bounded in
    [0, 1], ``student-t`` otherwise (a count)."""
    if binary:
        return WILSON_CC
    return SCORE_T if bounded else STUDENT_T


def mean_interval(
    values: Sequence[float] | pl.Series,
    *,
    binary: bool,
    bounded: bool = True,
    confidence: float = DEFAULT_CONFIDENCE,
) -> tuple[float, float]:
    """The report's interval for a mean: Wilson with continuity correction for hits, the score-t
    interval for graded values in [0, 1], Student t otherwise (``binary`` and ``bounded`` say what
    the measure is)."""
    n, mean, var, at_bounds = summary(_series(values))
    return interval_from(
        method_for(binary=binary, bounded=bounded), n, mean, var, at_bounds, confidence
    )


def interval_from(
    method: str,
    n: int,
    mean: float,
    var: float,
    at_bounds: float,
    confidence: float = DEFAULT_CONFIDENCE,
) -> tuple[float, float]:
    """:func:`mean_interval` from a cell's :func:`summary`: the stratified table computes those
    for every cell in one group-by and never builds a series per cell."""
    if method == WILSON:
        if n == 0:
            return (math.nan, math.nan)
        return wilson(int(round(mean * n)), n, confidence)
    if method == WILSON_CC:
        if n == 0:
            return (math.nan, math.nan)
        return wilson_cc(int(round(mean * n)), n, confidence)
    if method == SCORE_T:
        return score_from(n, mean, var, at_bounds, confidence)
    if method == STUDENT_T:
        return student_t_from(n, mean, var, confidence)
    raise ValueError(f"unknown interval method {method!r}")
