"""Intervals for a stratum's rate: Wilson for proportions, a seeded bootstrap for other means.

Seed 004 reads a stratum of 18 queries with 8 hits through the normal-approximation (Wald)
interval: se = sqrt(0.44 x 0.56 / 18) = 0.117, so 0.21 to 0.67. The Wald interval misbehaves on
small n and rates near 0 or 1 (it can leave [0, 1] and collapses to zero width at 0 of n), which
is exactly where small strata live, so the report uses Wilson's score interval for binary
measures and keeps Wald only to show the seed's arithmetic. Non-binary means (nDCG, AP) get a
percentile bootstrap, seeded so the same inputs always print the same interval.

Pure functions, no numpy: the standard library's NormalDist gives the quantile and Polars does
the resampling in one vectorised pass.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import polars as pl

from goldset_tui.scalar import as_float

DEFAULT_CONFIDENCE = 0.95
DEFAULT_SAMPLES = 2000
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
    """Standard error of a proportion, sqrt(p(1-p)/n) (seed 000: 0.092 at p=0.7, n=25)."""
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


def wald(hits: int, n: int, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """Normal-approximation interval p +- z*se, as seed 004 computes it (not clipped to [0, 1])."""
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


def bootstrap_mean_ci(
    values: Sequence[float] | pl.Series,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    samples: int = DEFAULT_SAMPLES,
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


def mean_interval(
    values: Sequence[float] | pl.Series,
    *,
    binary: bool,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = DEFAULT_SEED,
    samples: int = DEFAULT_SAMPLES,
) -> tuple[float, float]:
    """The report's interval: Wilson when every value is 0 or 1, bootstrap otherwise."""
    s = (
        pl.Series("v", values, dtype=pl.Float64)
        if not isinstance(values, pl.Series)
        else values.cast(pl.Float64)
    )
    if binary:
        return wilson(int(s.sum()), s.len(), confidence)
    return bootstrap_mean_ci(s, confidence=confidence, samples=samples, seed=seed)


def method_name(binary: bool) -> str:
    return "wilson" if binary else "bootstrap"
