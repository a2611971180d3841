"""Coverage of the traffic-weighted headline's 95% interval and of the weighted paired difference:
seeded sets of three strata of 7, 18 and 40 queries with unequal traffic shares, 0/1
rates near 0 and near 1 and graded values, through the report's own ``stratified_estimate`` and
``weighted_difference``. Each row must cover the weighted true mean at least 93% of the time and
every interval must lie inside the measure's range ([0, 1]; [-1, 1] for a difference). Before,
the stratified t interval covered 66-72% when the small stratum carried the traffic and left
[0, 1]. The longer study is ``bench/interval_coverage.py --only weighted`` (docs/report.md)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from goldset_tui.eval.weighting import Cell, stratified_estimate, weighted_difference

SIZES = (7, 18, 40)
SHARES = ((0.6, 0.3, 0.1), (0.1, 0.3, 0.6))  # the small stratum carrying the traffic, and not
REPS = 1500  # sets per row: a standard error of about 0.6 points around 95%
FLOOR = 0.93


def _bern(p: float):
    return lambda rng, size: (rng.random(size) < p).astype(float)


def _ones_else_uniform(one: float):
    def draw(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
        return np.where(rng.random(size) < one, 1.0, rng.random(size))

    return draw


def _steps(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    return rng.choice([0.0, 0.387, 0.631, 1.0], p=[0.3, 0.2, 0.2, 0.3], size=size)


STEPS_MEAN = 0.2 * 0.387 + 0.2 * 0.631 + 0.3  # worked out by hand from the step probabilities

# name: (binary, [(sampler, true mean) per stratum]); the true means by hand beside each.
ROWS = {
    "0/1 near 1": (True, [(_bern(p), p) for p in (0.97, 0.95, 0.90)]),
    "0/1 near 0": (True, [(_bern(p), p) for p in (0.03, 0.05, 0.10)]),
    "0/1 mixed": (True, [(_bern(p), p) for p in (0.44, 0.74, 0.98)]),
    "graded near 1": (False, [(_ones_else_uniform(0.9), 0.9 + 0.1 * 0.5)] * 3),
    "graded steps": (False, [(_steps, STEPS_MEAN)] * 3),
}


@pytest.mark.parametrize("name", list(ROWS))
def test_weighted_headline_covers_and_stays_in_range(name: str) -> None:
    binary, dists = ROWS[name]
    rng = np.random.default_rng(20261130 + len(name))
    for shares in SHARES:
        mu = sum(w * m for w, (_, m) in zip(shares, dists, strict=True))
        draws = [d(rng, (REPS, n)) for (d, _), n in zip(dists, SIZES, strict=True)]
        means = [x.mean(axis=1) for x in draws]
        variances = [x.var(axis=1, ddof=1) for x in draws]
        bounds = [np.isin(x, (0.0, 1.0)).mean(axis=1) for x in draws]
        covered = 0
        for r in range(REPS):
            cells = [
                Cell(w, n, float(m[r]), float(v[r]), None, float(b[r]))
                for w, n, m, v, b in zip(shares, SIZES, means, variances, bounds, strict=True)
            ]
            lo, hi = stratified_estimate(cells, method="wilson" if binary else "score-t").ci
            assert 0.0 <= lo <= hi <= 1.0 and hi > lo
            covered += lo <= mu <= hi
        assert covered / REPS >= FLOOR, f"{name}, shares {shares}: {covered / REPS:.3f}"


def _pairs(rng: np.random.Generator, n: int, only_a: float, only_b: float, both: float):
    u = rng.random(n)
    a = (u < only_a) | ((u >= only_a + only_b) & (u < only_a + only_b + both))
    b = ((u >= only_a) & (u < only_a + only_b)) | (
        (u >= only_a + only_b) & (u < only_a + only_b + both)
    )
    return a.astype(float), b.astype(float)


def test_weighted_difference_covers_and_stays_in_range() -> None:
    # 0/1 pairs per stratum: (only a, only b, both) -- a ahead by 0.2, 0.1 and 0.1 (true
    # differences only_a - only_b), so ties dominate the small stratum as in real comparisons.
    cells = [(0.2, 0.0, 0.6), (0.15, 0.05, 0.5), (0.1, 0.0, 0.8)]
    reps = REPS // 5  # a frame per set: slower per set than the headline
    rng = np.random.default_rng(7)
    qs = [f"q{i}" for i in range(sum(SIZES))]
    strata = pl.DataFrame(
        {"query_id": qs, "stratum": [f"s{h}" for h, n in enumerate(SIZES) for _ in range(n)]}
    )
    for shares in SHARES:
        traffic = pl.DataFrame({"stratum": ["s0", "s1", "s2"], "share": list(shares)})
        mu = sum(w * (oa - ob) for w, (oa, ob, _) in zip(shares, cells, strict=True))
        covered = 0
        for _ in range(reps):
            drawn = [_pairs(rng, n, *c) for n, c in zip(SIZES, cells, strict=True)]
            a = np.concatenate([x for x, _ in drawn])
            b = np.concatenate([y for _, y in drawn])
            scores = pl.DataFrame(
                {
                    "system": ["a"] * len(qs) + ["b"] * len(qs),
                    "query_id": qs * 2,
                    "value": np.concatenate([a, b]),
                }
            )
            # A 0/1 measure: the report's interval for it (each stratum's Tango, by MOVER).
            lo, hi = weighted_difference(scores, strata, traffic, "a", "b", binary=True).ci
            assert -1.0 <= lo <= hi <= 1.0 and hi > lo
            covered += lo <= mu <= hi
        assert covered / reps >= FLOOR, f"shares {shares}: {covered / reps:.3f}"


# --- the design-weighted (Hajek) headline ----------------------------------------------------
# The same strata sampled from a log whose stratum sizes follow the shares (inclusion probability
# n_h / N_h): the Hajek mean estimates the population-weighted true mean. The survey's t interval
# cut to [0, 1] covered 69-71% where the small stratum carried the population and was a point when
# every query scored the same; the report's must cover 93% and never be a point.
DESIGN_REPS = 400  # each set is a Polars call: fewer sets, rows whose coverage sits well above 93%


@pytest.mark.parametrize("name", ["0/1 near 1", "graded near 1"])
def test_design_weighted_headline_covers_and_keeps_a_width(name: str) -> None:
    from goldset_tui.eval.headline import hajek_estimates

    binary, dists = ROWS[name]
    rng = np.random.default_rng(20261201 + len(name))
    qids = [f"q{i}" for i in range(sum(SIZES))]
    strata = pl.DataFrame(
        {"query_id": qids, "stratum": [f"s{h}" for h, n in enumerate(SIZES) for _ in range(n)]}
    )
    shares = SHARES[0]  # the small stratum is 60% of the log
    mu = sum(w * m for w, (_, m) in zip(shares, dists, strict=True))
    pi = [n / (w * 2000) for n, w in zip(SIZES, shares, strict=True)]
    probabilities = pl.DataFrame(
        {
            "query_id": qids,
            "inclusion_probability": [p for p, n in zip(pi, SIZES, strict=True) for _ in range(n)],
        }
    )
    draws = [d(rng, (DESIGN_REPS, n)) for (d, _), n in zip(dists, SIZES, strict=True)]
    covered = 0
    for r in range(DESIGN_REPS):
        values = np.concatenate([x[r] for x in draws])
        scores = pl.DataFrame({"system": "a", "query_id": qids, "value": values})
        est = hajek_estimates(scores, probabilities, strata, binary=binary)["a"]
        lo, hi = est.ci
        assert 0.0 <= lo < hi <= 1.0
        covered += lo <= mu <= hi
    assert covered / DESIGN_REPS >= FLOOR
