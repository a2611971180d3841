"""Coverage of the paired interval for a 0/1 measure where a few queries flip, computed exactly.

Two systems on n queries, each query flipping from a miss to a hit with probability f and never
the other way: the true difference is f and the number of flips is binomial(n, f), so the share of
sets whose interval holds f is a finite sum over the flip counts (no simulation). The score
interval on the differences covered 0.865 at n = 200 with 1% flips and 0.866 at n = 100 with 2%
(a fifth of the grid of n 30-300 and flip rates 0.5-10% under 0.93); the interval
``paired_comparison`` gives a 0/1 measure must hold 0.93 on every cell of the subset below (the
whole grid: bench/interval_coverage.py --only paired01). Flips both ways (a trinomial) are checked
on two cells.

``samples=1``: the interval does not depend on the randomization samples, so one keeps this fast.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from scipy.stats import binom

from goldset_tui.eval.stats import paired_comparison

FLOOR = 0.93
SIZES = (30, 50, 100, 110, 200, 300)
FLIPS = (0.005, 0.01, 0.02, 0.05, 0.1)


@cache
def printed(only_a: int, only_b: int, n: int) -> tuple[float, float]:
    """The interval ``paired_comparison`` gives a 0/1 measure with these discordant counts."""
    a = [1.0] * only_a + [0.0] * only_b + [1.0] * ((n - only_a - only_b) // 2)
    b = [0.0] * only_a + [1.0] * only_b + [1.0] * ((n - only_a - only_b) // 2)
    rest = n - len(a)
    r = paired_comparison(a + [0.0] * rest, b + [0.0] * rest, binary=True, samples=1)
    return r.ci95


def one_way_coverage(n: int, flip: float) -> float:
    # Flip counts beyond the 1e-9 tail carry no weight worth computing an interval for.
    top = int(binom.ppf(1 - 1e-9, n, flip))
    counts = np.arange(top + 1)
    pmf = binom.pmf(counts, n, flip)
    holds = [lo <= flip <= hi for lo, hi in (printed(int(k), 0, n) for k in counts)]
    return float(pmf[holds].sum())


@pytest.mark.parametrize("n", SIZES)
def test_a_few_one_way_flips_are_covered(n: int) -> None:
    coverage = {f: one_way_coverage(n, f) for f in FLIPS}
    assert min(coverage.values()) >= FLOOR, coverage


def test_flips_both_ways_are_covered() -> None:
    for n, only_a, only_b in ((40, 0.05, 0.02), (100, 0.02, 0.01)):
        truth, total = only_a - only_b, 0.0
        for k in range(int(binom.ppf(1 - 1e-9, n, only_a)) + 1):
            p_k = binom.pmf(k, n, only_a)
            js = np.arange(int(binom.ppf(1 - 1e-9, n - k, only_b / (1 - only_a))) + 1)
            p_j = binom.pmf(js, n - k, only_b / (1 - only_a))
            holds = [lo <= truth <= hi for lo, hi in (printed(k, int(j), n) for j in js)]
            total += p_k * float(p_j[holds].sum())
        assert total >= FLOOR, (n, only_a, only_b, total)


def test_no_query_flipping_keeps_the_rule_of_three() -> None:
    # 0 of n differ: the rule of three bounds the share that could differ by 3 / n.
    for n in (30, 100, 300):
        lo, hi = printed(0, 0, n)
        assert lo <= -3 / n and hi >= 3 / n


@pytest.mark.parametrize(
    "only_a, only_b, n",
    [
        (0, 0, 2),
        (1, 0, 2),
        (2, 0, 2),
        (1, 1, 2),
        (0, 7, 7),
        (3, 4, 7),
        (5, 0, 42),
        (3, 1, 20),
        (10, 3, 40),
        (0, 0, 100),
        (60, 40, 100),
        (150, 20, 300),
        (0, 300, 300),
    ],
)
def test_the_interval_is_tangos_written_out_with_scipy(only_a: int, only_b: int, n: int) -> None:
    from goldset_tui.eval.paired_interval import paired_rate_interval

    from .paired_by_hand import tango_by_hand

    ours = paired_rate_interval(only_a, only_b, n)
    assert ours == pytest.approx(tango_by_hand(only_a, only_b, n), abs=1e-6)
    assert -1.0 <= ours[0] <= (only_a - only_b) / n <= ours[1] <= 1.0
