"""The interval for a paired difference of two rates: Tango's score interval.

Two systems scored 0/1 on the same n queries differ only on the discordant queries: ``only_a``
where a alone scored 1, ``only_b`` where b alone did. The mean difference is
(only_a - only_b) / n, and its variance depends on how many queries are discordant, which is what a
score interval on the per-query differences (``intervals.difference_interval``) estimates badly
when few queries flip: with 2 of 100 queries flipping one way it covered 0.87 of the time, and on
100 tied queries it gave +-0.020, narrower than the rule of three (3 / n = 0.03) says the share of
queries that could differ is.

Tango (1998) inverts the score test of the difference d = p_a - p_b with the discordant share
p_b-only re-estimated under each candidate d (its constrained maximum likelihood, a quadratic):

    T(d) = (only_a - only_b - n d) / sqrt(n (2 q(d) + d (1 - d)))
    q(d) = (sqrt(B^2 - 4 A C) - B) / (2 A),  A = 2n,  B = -only_a - only_b + (2n - only_a + only_b) d,
                                              C = -only_b d (1 - d)

and the interval is every d with |T(d)| <= the quantile. On 100 tied queries it is +-0.037. With
the normal quantile it held 0.93 on the coarse grid of n from 30 to 300 and one-way flip rates
0.5-10% but fell to 0.927 on a finer one; with Student's t at n - 1 degrees of freedom (as the
score-t interval takes) every cell of the finer grid, n = 5-300 by steps of 10 and flip rates by
0.25 points, holds 0.930 or more (exact binomial sums: bench/interval_coverage.py --only paired01,
docs/report.md). Checked against a direct scipy root-finding of the same statistic in the tests.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from goldset_tui.eval.intervals import DEFAULT_CONFIDENCE, t_value, z_value
from goldset_tui.eval.t_distribution import t_quantile

PAIRED_SCORE = "paired-score-t"
PAIRED_SCORE_TEXT = "Tango's score interval for a difference of paired rates, Student t quantile"
_EDGE = 1e-12


def tango_statistic(only_a: int, only_b: int, n: int, d: float) -> float:
    """Tango's score statistic T(d) for the difference d = p_a - p_b (module docstring);
    +-inf where its variance is 0 and the observed difference is not d."""
    a, b = float(only_a), float(only_b)
    big_a = 2.0 * n
    big_b = -a - b + (2.0 * n - a + b) * d
    big_c = -b * d * (1.0 - d)
    q = (math.sqrt(max(0.0, big_b * big_b - 4.0 * big_a * big_c)) - big_b) / (2.0 * big_a)
    top = a - b - n * d
    var = n * (2.0 * q + d * (1.0 - d))
    if var <= 0.0:
        return 0.0 if top == 0.0 else math.copysign(math.inf, top)
    return top / math.sqrt(var)


def paired_rate_interval(
    only_a: int, only_b: int, n: int, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float]:
    """Tango's score interval for p_a - p_b from the discordant counts of n paired 0/1 queries,
    with Student's t (n - 1) in place of the normal quantile; inside [-1, 1], (nan, nan) below two
    queries."""
    if only_a < 0 or only_b < 0 or only_a + only_b > n:
        raise ValueError(f"need 0 <= only_a + only_b <= n, got {only_a}, {only_b}, {n}")
    if n < 2:
        return (math.nan, math.nan)
    return tango_interval(only_a, only_b, n, t_value(n, confidence))


def tango_interval(only_a: int, only_b: int, n: int, q: float) -> tuple[float, float]:
    """Every d with |T(d)| <= ``q`` (``paired_rate_interval`` with the quantile given)."""
    observed = (only_a - only_b) / n

    def stat(d: float) -> float:
        return tango_statistic(only_a, only_b, n, d)

    # T falls as d rises: the lower end is where T comes down to q, the upper where it reaches -q.
    if stat(-1.0 + _EDGE) <= q:
        lo = -1.0
    else:
        left, right = -1.0 + _EDGE, observed
        for _ in range(100):
            mid = (left + right) / 2.0
            left, right = (mid, right) if stat(mid) > q else (left, mid)
        lo = (left + right) / 2.0
    if stat(1.0 - _EDGE) >= -q:
        hi = 1.0
    else:
        left, right = observed, 1.0 - _EDGE
        for _ in range(100):
            mid = (left + right) / 2.0
            left, right = (left, mid) if stat(mid) < -q else (mid, right)
        hi = (left + right) / 2.0
    return (max(-1.0, lo), min(1.0, hi))


class PairedCell(NamedTuple):
    """One stratum of a paired 0/1 comparison: its traffic share, its n queries, of which
    ``only_a`` a alone scored and ``only_b`` b alone, and its population (None: no
    finite-population correction)."""

    share: float
    n: int
    only_a: int
    only_b: int
    population: float | None = None


def stratified_paired_rates(
    cells: list[PairedCell], confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, tuple[float, float]]:
    """(sum_h W_h d_h, its interval) for the traffic-weighted difference of two paired 0/1 rates,
    each stratum's d_h = (only_a - only_b) / n_h.

    Each stratum's own Tango interval gives the distance from d_h to either end; the strata,
    drawn independently, are combined by adding those distances in quadrature, weighted by W_h^2
    (and by the finite-population correction 1 - n_h / N_h when N_h is known): the MOVER of Zou &
    Donner (2008), Newcombe's square-and-add for a sum of independent estimates. It keeps each
    stratum's skew (a stratum where only a ever wins reaches further down than up).

    The quantile is one Student t for all strata, at the Welch-Satterthwaite degrees of freedom
    of the strata's terms (each term W_h^2 times the squared half-width of the stratum's Tango
    interval at the normal quantile): with one stratum, n - 1, so its interval is the one
    ``goldset compare`` prints (each stratum taking its own t(n_h - 1) was a little wider; the
    exact study: bench/interval_coverage.py --only wpaired01, docs/report.md). The ends stay within
    +-(sum of shares). A stratum of fewer than two queries gives (nan, nan)."""
    mean = math.fsum(c.share * (c.only_a - c.only_b) / c.n for c in cells if c.n > 0)
    if not cells or any(c.n < 2 for c in cells):
        return mean, (math.nan, math.nan)
    z = z_value(confidence)
    weights = [
        c.share**2 * (max(0.0, 1.0 - c.n / c.population) if c.population else 1.0) for c in cells
    ]
    terms = []
    for c, w in zip(cells, weights, strict=True):
        lo, hi = tango_interval(c.only_a, c.only_b, c.n, z)
        terms.append(w * ((hi - lo) / (2.0 * z)) ** 2)
    spread = math.fsum(terms)
    if spread <= 0.0:  # every stratum taken in full: no sampling error
        return mean, (mean, mean)
    df = spread**2 / math.fsum(t * t / (c.n - 1) for t, c in zip(terms, cells, strict=True))
    q = t_quantile(0.5 + confidence / 2.0, df)
    below = above = 0.0
    for c, w in zip(cells, weights, strict=True):
        d = (c.only_a - c.only_b) / c.n
        lo, hi = tango_interval(c.only_a, c.only_b, c.n, q)
        below += w * (d - lo) ** 2
        above += w * (hi - d) ** 2
    total = math.fsum(c.share for c in cells)
    # Shares that sum to 1 only in floating point must not carry an end past +-1.
    top = 1.0 if abs(total - 1.0) < 1e-9 else total
    return mean, (max(-top, mean - math.sqrt(below)), min(top, mean + math.sqrt(above)))
