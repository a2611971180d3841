"""Does a feature's mix differ between two query sets? The test and the effect size that
``goldset classify --compare`` judges each feature by (docs/sampling.md says why these).

One Jensen-Shannon threshold for every feature called a negation rate of 10% against 20%
"alike" (0.016 bits, under 0.02), as it did 5% against 10% and 18% against 30%: a divergence in
bits shrinks with the rate, so a doubled rare rate scores like a small shift of a common one.
Each feature is a distribution over bins (two for a yes/no rate, up to seven for the length in
tokens), and is judged here by two numbers that mean the same at any number of bins:

- the **effect**, the largest odds ratio of one bin against the rest between the two sides (for a
  yes/no rate, the odds ratio of "yes"), taken as at least 1 whichever side is higher. A rate
  that doubles has an odds ratio above 2 wherever it starts (2p (1 - p) / (p (1 - 2p)) > 2), so a
  doubled rate never passes as alike; a bin present on one side only has an infinite one.
- the **test**, Pearson's chi-square test of homogeneity on the 2 x k table of the bins, with
  k - 1 degrees of freedom (for two bins, the pooled two-proportion z-test squared). Both sides
  are weighted by occurrences, and the table holds their occurrences by bin: a log is read as a
  sample of searches, each an independent draw from the popularity of its queries, and a set of
  generated queries without counts is one search a query. A large log then stands for traffic
  almost exactly, and the test asks whether the generated set, at its size, is a plausible draw
  from it.

Verdict: "alike" when the effect is under ``ALIKE_ODDS`` (1.25: about 5 points around one half,
10% against 12% at the tail), whatever the test says; otherwise "may differ" when the test cannot
tell the difference from chance (p >= 0.05: too few queries to tell), else "differ somewhat"
under ``LOT_ODDS`` (2) and "differ a lot" from it. Once the test tells, the effect is read from
the bins whose own difference is beyond chance (that bin against the rest, the same test at 1
df): a bin of 0.1% that one side lacks has an infinite odds ratio, but names nothing when the
difference lies in the bins that hold the queries.

Contract: pure functions over ``{bin: weight}`` mappings; no scipy at run time (the chi-square
tail is the regularized incomplete gamma function, checked against scipy in the tests).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

ALIKE_ODDS = 1.25
LOT_ODDS = 2.0
LEVEL = 0.05

ALIKE = "alike"
MAY_DIFFER = "may differ"
SOMEWHAT = "differ somewhat"
A_LOT = "differ a lot"
NOT_MEASURED = "not measured"


def _lower_series(a: float, x: float) -> float:
    """P(a, x) by its power series (converges fast for x < a + 1)."""
    term = total = 1.0 / a
    k = a
    for _ in range(10_000):
        k += 1.0
        term *= x / k
        total += term
        if abs(term) < abs(total) * 1e-16:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_fraction(a: float, x: float) -> float:
    """Q(a, x) by Lentz's continued fraction (for x >= a + 1)."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def chi2_sf(statistic: float, df: int) -> float:
    """P(X >= statistic) for X chi-square with ``df`` degrees of freedom: Q(df / 2, x / 2)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    if statistic <= 0:
        return 1.0
    a, x = df / 2.0, statistic / 2.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _lower_series(a, x))
    return min(1.0, _upper_fraction(a, x))


def _shares(w: Mapping[str, float]) -> dict[str, float]:
    total = sum(w.values())
    return {k: v / total for k, v in w.items()} if total > 0 else {}


def homogeneity(
    p: Mapping[str, float], q: Mapping[str, float], n_p: float, n_q: float
) -> tuple[float, int, float]:
    """Pearson's chi-square test that ``p`` and ``q`` (weights by bin) share one distribution,
    on each side's shares times its size ``n_p`` / ``n_q``: (statistic, df, p-value).
    Bins empty on both sides are left out; one bin in all gives (0, 0, 1)."""
    sp, sq = _shares(p), _shares(q)
    bins = sorted(k for k in set(sp) | set(sq) if sp.get(k, 0.0) + sq.get(k, 0.0) > 0)
    if len(bins) < 2 or n_p <= 0 or n_q <= 0:
        return 0.0, 0, 1.0
    total = n_p + n_q
    statistic = 0.0
    for k in bins:
        observed = (sp.get(k, 0.0) * n_p, sq.get(k, 0.0) * n_q)
        column = observed[0] + observed[1]
        for o, n in zip(observed, (n_p, n_q), strict=True):
            expected = n * column / total
            statistic += (o - expected) ** 2 / expected
    df = len(bins) - 1
    return statistic, df, chi2_sf(statistic, df)


def odds_ratio(a: float, b: float) -> float:
    """The odds ratio of shares ``a`` and ``b``, as at least 1 (either side higher); infinite
    when one side is 0 or 1 and the other is not; 1 when they are equal."""
    if a == b:
        return 1.0
    if min(a, b) <= 0.0 or max(a, b) >= 1.0:
        return math.inf
    ratio = (a / (1 - a)) / (b / (1 - b))
    return max(ratio, 1.0 / ratio)


def largest_odds_ratio(p: Mapping[str, float], q: Mapping[str, float]) -> tuple[float, str | None]:
    """Over the bins of ``p`` and ``q`` (weights), the largest one-bin-against-the-rest odds
    ratio and its bin (the first in sorted order on a tie); (1, None) when nothing differs."""
    sp, sq = _shares(p), _shares(q)
    best, where = 1.0, None
    for k in sorted(set(sp) | set(sq)):
        ratio = odds_ratio(sp.get(k, 0.0), sq.get(k, 0.0))
        if ratio > best:
            best, where = ratio, k
    return best, where


def shape_verdict(effect: float, p_value: float) -> str:
    """The module docstring's rule, from the effect (largest odds ratio) and the test's p."""
    if math.isnan(effect) or math.isnan(p_value):
        return NOT_MEASURED
    if effect < ALIKE_ODDS:
        return ALIKE
    if p_value >= LEVEL:
        return MAY_DIFFER
    return SOMEWHAT if effect < LOT_ODDS else A_LOT


def effect(
    p: Mapping[str, float], q: Mapping[str, float], n_p: float, n_q: float
) -> tuple[float, str | None, float, int]:
    """(odds ratio, its bin, p-value, df) for the verdict: the largest odds ratio over every bin
    when it is under ``ALIKE_ODDS`` or the test cannot tell; otherwise the largest over the bins
    whose own test (that bin against the rest) tells, kept at least ``ALIKE_ODDS`` (the mix as a
    whole differs beyond chance), or the largest over all when no single bin tells."""
    ratio, where = largest_odds_ratio(p, q)
    _stat, df, p_value = homogeneity(p, q, n_p, n_q)
    if ratio < ALIKE_ODDS or p_value >= LEVEL or df <= 1:
        return ratio, where, p_value, df
    sp, sq = _shares(p), _shares(q)
    telling = []
    for k in sorted(set(sp) | set(sq)):
        a, b = sp.get(k, 0.0), sq.get(k, 0.0)
        _s, _d, own = homogeneity({"in": a, "out": 1 - a}, {"in": b, "out": 1 - b}, n_p, n_q)
        if own < LEVEL:
            telling.append((odds_ratio(a, b), k))
    if not telling:
        return ratio, where, p_value, df
    best, at = telling[0]
    for r, k in telling[1:]:
        if r > best:
            best, at = r, k
    return max(best, ALIKE_ODDS), at, p_value, df
