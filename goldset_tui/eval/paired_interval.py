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

from goldset_tui.eval.intervals import DEFAULT_CONFIDENCE, t_value

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
    q = t_value(n, confidence)
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
