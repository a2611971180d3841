"""Coverage of the paired comparison's 95% interval on small sets (5 to 20 queries): seeded pairs
of per-query scores from known distributions, through ``stats.paired_comparison`` itself. Each row
must hold the true mean difference at least 93% of the time, and every interval must lie inside
[-1, 1] with a width. The rows are those where the percentile bootstrap it replaced fell furthest
(bench/interval_coverage.py --only paired, docs/report.md): 0.22-0.30 with a difference near +-1,
0.24 with 3% of queries moving, 0.70 with 80% ties, 0.88 on two skewed graded systems at 7
queries; and it was a point on up to 87% of the sets there.

``samples=1``: the interval does not depend on the randomization samples (the p-value, which does,
is checked against scipy in tests/unit/eval/test_stats_fusion.py), so one keeps this test fast."""

from __future__ import annotations

import numpy as np
import pytest

from goldset_tui.eval.stats import paired_comparison

REPS = 1000  # sets per row: a standard error of about 0.7 points around 95%
FLOOR = 0.93


def _binary(only_a: float, only_b: float, both: float):
    """Per query: only a scores 1, only b, both, or neither; true difference only_a - only_b."""

    def draw(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
        u = rng.random(size)
        a = (u < only_a) | ((u >= only_a + only_b) & (u < only_a + only_b + both))
        b = (u >= only_a) & (u < only_a + only_b + both)
        return a.astype(float), b.astype(float)

    return draw, only_a - only_b


def _shrunk(tie: float):
    """a uniform; b = a with probability ``tie``, else a x U: true difference (1 - tie) x 1/2 x
    1/2 (E[a] = 1/2, E[1 - U] = 1/2)."""

    def draw(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
        a = rng.random(size)
        return a, np.where(rng.random(size) < tie, a, a * rng.random(size))

    return draw, (1 - tie) / 4


def _near_one(rng: np.random.Generator, size: int) -> np.ndarray:
    return np.where(rng.random(size) < 0.9, 1.0, rng.random(size))  # mean 0.9 + 0.1 x 0.5


def _near_zero(rng: np.random.Generator, size: int) -> np.ndarray:
    return np.where(rng.random(size) < 0.85, 0.0, rng.random(size))  # mean 0.15 x 0.5


def _graded_near_minus_one():
    return (lambda rng, size: (_near_zero(rng, size), _near_one(rng, size))), 0.075 - 0.95


def _betas():
    # beta(5, 2) has mean 5/7, beta(2, 5) mean 2/7.
    return (lambda rng, size: (rng.beta(5, 2, size), rng.beta(2, 5, size))), 3 / 7


# name: ((sampler, true difference), n)
ROWS = {
    "0/1 near +1, 7 queries": (_binary(0.95, 0.02, 0.0), 7),
    "0/1 near -1, 20 queries": (_binary(0.02, 0.95, 0.0), 20),
    "0/1, 3% move, 10 queries": (_binary(0.03, 0.0, 0.5), 10),
    "0/1, a ahead by .30, 5 queries": (_binary(0.35, 0.05, 0.3), 5),
    "graded, 80% ties, 10 queries": (_shrunk(0.8), 10),
    "graded near -1, 7 queries": (_graded_near_minus_one(), 7),
    "graded beta(5,2) vs beta(2,5), 7 queries": (_betas(), 7),
}


@pytest.mark.parametrize("name", list(ROWS))
def test_paired_interval_covers_and_keeps_a_width(name: str) -> None:
    (draw, mu), n = ROWS[name]
    rng = np.random.default_rng(20261201 + len(name))
    a, b = draw(rng, REPS * n)
    covered = 0
    for r in range(REPS):
        part = slice(r * n, (r + 1) * n)
        lo, hi = paired_comparison(a[part].tolist(), b[part].tolist(), samples=1).ci95
        assert -1.0 <= lo < hi <= 1.0, (lo, hi)
        covered += lo <= mu <= hi
    assert covered / REPS >= FLOOR, f"{name}: {covered / REPS:.3f}"
