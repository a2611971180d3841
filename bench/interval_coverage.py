"""How often does each 95% interval for a stratum's mean cover the true mean, at 7, 18 and 40 queries?

The question behind the report's choice of interval: the percentile bootstrap it used
for graded measures under-covers in small strata. This draws many strata from known per-query
distributions shaped like retrieval scores (binary hits; graded values with many zeros, a ceiling
at 1, discrete nDCG-like steps, reciprocal ranks) and counts how often each method's interval holds
the distribution's true mean. Binary rows use the report's Wilson with continuity correction and
are exact (binomial sums, no simulation; the whole rate grid and its peers: --only binary). Graded
rows compare the percentile bootstrap, BCa, Student t on the per-query values and the library's
choice (``mean_interval``), side by side.

Then the traffic-weighted headline and the weighted paired difference: three strata of 7, 18
and 40 queries with unequal traffic shares (the small stratum carrying 60%, or the large one), 0/1
rates near 0, near 1 and mixed, graded values; the interval before (stratified t), Wilson with the
plain Kish / Dean-Pagano effective n, and the report's (``weighting.stratified_estimate``,
``weighting.weighted_difference``), with the share of intervals inside the measure's range.

    python bench/interval_coverage.py                 # 4000 strata per cell: 35 minutes on a loaded 2-core machine
    python bench/interval_coverage.py --reps 1000     # quicker, noisier (+-0.7 points)
    python bench/interval_coverage.py --only weighted # the weighted part alone (about 2 minutes)
    python bench/interval_coverage.py --only design --reps 1000  # the design-weighted (Hajek) part
    python bench/interval_coverage.py --only paired --reps 4000  # the paired difference (6.5 minutes)
    python bench/interval_coverage.py --only headline --reps 500  # both headlines on goldset's own samples
    python bench/interval_coverage.py --only binary              # a stratum's 0/1 rate, exact
    python bench/interval_coverage.py --only paired01            # a few queries flipping, exact
    python bench/interval_coverage.py --only alpha --reps 500    # Krippendorff's alpha
    python bench/interval_coverage.py --only scoret --reps 4000  # score-t on mostly-0/1 strata
    python bench/interval_coverage.py --only kappa --reps 300    # kappas, agreements, leniency
    python bench/interval_coverage.py --only wpaired01           # weighted 0/1 difference, exact

The paired difference (``goldset compare``, the report's paired rows, the history's changes): one
set of 5, 7, 10, 20 or 50 queries scored by two systems, true mean differences near 0, near +-1
and with many ties, 0/1 and graded; the percentile bootstrap the comparison used before, BCa,
Student t and the library's ``intervals.difference_interval``, with the share of point intervals
and the mean widths (rows of ``--reps / 2`` sets).

The design-weighted (Hajek) headline: the same three strata, sampled from populations whose sizes
follow the shares (inclusion probability n_h / N_h), so the Hajek mean estimates the
population-weighted true mean; the survey's Taylor interval cut to [0, 1] (before) against the
report's (``weighting.hajek_estimates``).

numpy is used here for the bootstrap peers only; the library's intervals are pure Python/Polars.
"""

from __future__ import annotations

import argparse
import math
import time

import polars as pl
from _needs import require  # bench/ is sys.path[0] when a script runs

from goldset_tui.eval.headline import hajek_estimates
from goldset_tui.eval.intervals import (
    difference_interval,
    mean_interval,
    student_t,
    t_quantile,
    wilson_cc,
    wilson_form,
)
from goldset_tui.eval.weighting import (
    Cell,
    stratified_estimate,
    weighted_difference,
)

require("numpy")  # before the import below, so a missing extra is one line, not a traceback

import numpy as np  # noqa: E402

SIZES = (7, 18, 40)
BOOT = 2000
PARTS = ("binary", "paired01", "alpha", "scoret", "kappa", "wpaired01")


def run_part(part: str, reps: int, rng: np.random.Generator) -> None:
    """The parts in bench/interval_coverage_parts.py (its docstring says what each measures)."""
    import interval_coverage_parts as parts

    if part == "binary":
        parts.binary_table()
    elif part == "paired01":
        parts.paired01_table()
    elif part == "alpha":
        parts.alpha_table(reps, rng)
    elif part == "kappa":  # bench/agreement_coverage.py
        from agreement_coverage import kappa_table, leniency_table

        kappa_table(reps, rng)
        leniency_table(reps, rng)
    elif part == "wpaired01":  # bench/paired_weighted_coverage.py
        from paired_weighted_coverage import wpaired01_table

        wpaired01_table()
    else:
        parts.scoret_table(reps, rng, GRADED)


def _mix(zero: float, one: float, rest):
    def draw(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
        u = rng.random(size)
        return np.where(u < zero, 0.0, np.where(u < zero + one, 1.0, rest(rng, size)))

    return draw


def _discrete(values: list[float], probs: list[float]):
    def draw(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
        return rng.choice(np.asarray(values), p=np.asarray(probs), size=size)

    return draw


# name: (sampler, true mean)
GRADED = {
    "uniform(0,1)": (lambda rng, size: rng.random(size), 0.5),
    "beta(2,5), skewed": (lambda rng, size: rng.beta(2, 5, size), 2 / 7),
    "50% zeros, else beta(2,2)": (_mix(0.5, 0.0, lambda rng, s: rng.beta(2, 2, s)), 0.25),
    "70% zeros, else uniform": (_mix(0.7, 0.0, lambda rng, s: rng.random(s)), 0.15),
    "85% zeros, else uniform": (_mix(0.85, 0.0, lambda rng, s: rng.random(s)), 0.075),
    "60% ones, 10% zeros, else uniform": (_mix(0.1, 0.6, lambda rng, s: rng.random(s)), 0.75),
    "nDCG-like steps 0/.39/.5/.63/1": (
        _discrete([0.0, 0.387, 0.5, 0.631, 1.0], [0.3, 0.1, 0.1, 0.2, 0.3]),
        0.3 * 0 + 0.1 * 0.387 + 0.1 * 0.5 + 0.2 * 0.631 + 0.3,
    ),
    "reciprocal rank, 30% zeros": (
        _discrete([0.0, 1.0, 1 / 2, 1 / 3, 1 / 5, 1 / 10], [0.3, 0.3, 0.15, 0.1, 0.1, 0.05]),
        0.3 + 0.15 / 2 + 0.1 / 3 + 0.1 / 5 + 0.05 / 10,
    ),
}
BINARY = (0.1, 0.44, 0.74, 0.9)


def wilson_exact(p: float, n: int) -> float:
    """Exact coverage of the report's 0/1 interval (Wilson with continuity correction) at true rate
    ``p``: sum of binomial probabilities of covering hits."""
    total = 0.0
    for hits in range(n + 1):
        lo, hi = wilson_cc(hits, n)
        if lo <= p <= hi:
            total += math.comb(n, hits) * p**hits * (1 - p) ** (n - hits)
    return total


def percentile(x: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
    means = x[rng.integers(0, len(x), size=(BOOT, len(x)))].mean(axis=1)
    lo, hi = np.quantile(means, [0.025, 0.975])
    return float(lo), float(hi)


def bca(x: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
    from statistics import NormalDist

    nd = NormalDist()
    n = len(x)
    means = x[rng.integers(0, n, size=(BOOT, n))].mean(axis=1)
    theta = x.mean()
    below = (means < theta).mean()
    if below <= 0 or below >= 1:
        return float(means.min()), float(means.max())
    z0 = nd.inv_cdf(below)
    jack = (x.sum() - x) / (n - 1)
    d = jack.mean() - jack
    denom = 6 * (d**2).sum() ** 1.5
    a = (d**3).sum() / denom if denom > 0 else 0.0
    ends = []
    for alpha in (0.025, 0.975):
        z = nd.inv_cdf(alpha)
        q = nd.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
        ends.append(float(np.quantile(means, min(max(q, 0.0), 1.0))))
    return ends[0], ends[1]


METHODS = {
    "percentile bootstrap": lambda x, rng: percentile(x, rng),
    "BCa": lambda x, rng: bca(x, rng),
    "Student t": lambda x, rng: student_t(x.tolist()),
    "report (mean_interval)": lambda x, rng: mean_interval(x.tolist(), binary=False),
}


# --- the traffic-weighted headline and paired difference --------------------------------------
# Strata of 7, 18 and 40 queries with unequal traffic shares, each stratum drawn from its own
# distribution; the interval must hold the weighted true mean and stay inside the measure's range.

WEIGHTED_SIZES = (7, 18, 40)
SHARES = {
    "small stratum heavy (.6/.3/.1)": (0.6, 0.3, 0.1),
    "large heavy (.1/.3/.6)": (0.1, 0.3, 0.6),
}


def _bern(p: float):
    return lambda rng, size: (rng.random(size) < p).astype(float)


def _ones(one: float):
    return _mix(0.0, one, lambda rng, s: rng.random(s))


# name: (binary, per-stratum (sampler, true mean))
WEIGHTED = {
    "binary near 1 (.97/.95/.90)": (True, [(_bern(p), p) for p in (0.97, 0.95, 0.90)]),
    "binary near 0 (.03/.05/.10)": (True, [(_bern(p), p) for p in (0.03, 0.05, 0.10)]),
    "binary mixed (.44/.74/.98)": (True, [(_bern(p), p) for p in (0.44, 0.74, 0.98)]),
    "graded: 70% zeros / steps / 60% ones": (
        False,
        [
            GRADED["70% zeros, else uniform"],
            GRADED["nDCG-like steps 0/.39/.5/.63/1"],
            GRADED["60% ones, 10% zeros, else uniform"],
        ],
    ),
    "graded near 1 (90% ones, else uniform)": (False, [(_ones(0.9), 0.95)] * 3),
    "graded near 0 (85% zeros, else uniform)": (False, [GRADED["85% zeros, else uniform"]] * 3),
}


def _paired_binary(only_a: float, only_b: float, both: float):
    """Per query (a, b) in {0, 1}: a alone with ``only_a``, b alone with ``only_b``, both with
    ``both``; true mean difference only_a - only_b."""

    def draw(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
        u = rng.random(size)
        a = (u < only_a) | ((u >= only_a + only_b) & (u < only_a + only_b + both))
        b = ((u >= only_a) & (u < only_a + only_b)) | (
            (u >= only_a + only_b) & (u < only_a + only_b + both)
        )
        return a.astype(float), b.astype(float)

    return draw, only_a - only_b


def _paired_graded(tie: float, base):
    """b equals a with probability ``tie``, else an independent draw: true difference 0."""

    def draw(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
        a = base(rng, size)
        b = np.where(rng.random(size) < tie, a, base(rng, size))
        return a, b

    return draw, 0.0


PAIRED = {
    "binary, 2-4% discordant, diff +.02": [_paired_binary(0.04, 0.02, 0.9)] * 3,
    "binary, 1% discordant each way": [_paired_binary(0.01, 0.01, 0.9)] * 3,
    "binary, a ahead by .10-.20": [
        _paired_binary(0.2, 0.0, 0.6),
        _paired_binary(0.15, 0.05, 0.5),
        _paired_binary(0.1, 0.0, 0.8),
    ],
    "graded, 70% ties, nDCG steps": [
        _paired_graded(0.7, GRADED["nDCG-like steps 0/.39/.5/.63/1"][0])
    ]
    * 3,
    "graded, 90% ties, 70% zeros": [_paired_graded(0.9, GRADED["70% zeros, else uniform"][0])] * 3,
}


def _summary(x: np.ndarray, discrete: tuple[float, ...]) -> tuple[int, float, float, float]:
    return len(x), float(x.mean()), float(x.var(ddof=1)), float(np.isin(x, discrete).mean())


def _welch_t(cells: list[Cell]) -> tuple[float, float]:
    """Before this change: the stratified t interval (Cochran, Welch-Satterthwaite)."""
    return stratified_estimate(cells, method="student-t").ci


def _dean_pagano(cells: list[Cell], binary: bool) -> tuple[float, float]:
    """Wilson with the Kish/Dean-Pagano effective n = p(1 - p) / var, no floor (n_eff = n when
    the variance is 0)."""
    p = sum(c.share * c.mean for c in cells)
    var = sum(c.share**2 * c.var / c.n for c in cells)
    n = sum(c.n for c in cells)
    n_eff = p * (1 - p) / var if var > 0 and 0 < p < 1 else n
    return wilson_form(p, n_eff, 1.959964)


WEIGHTED_METHODS = ("stratified t (before)", "Wilson, Dean-Pagano n_eff", "report (weighted_ci95)")


def weighted_table(reps: int, rng: np.random.Generator) -> None:
    print(f"\nTraffic-weighted headline, strata of {WEIGHTED_SIZES}, {reps} sets per row:\n")
    print(
        "| distributions | shares | "
        + " | ".join(WEIGHTED_METHODS)
        + " | report inside [0,1] | report width |"
    )
    print("|---|---|" + "---:|" * (len(WEIGHTED_METHODS) + 2))
    for name, (binary, dists) in WEIGHTED.items():
        for label, shares in SHARES.items():
            mu = sum(w * m for w, (_, m) in zip(shares, dists, strict=True))
            draws = [d(rng, (reps, n)) for (d, _), n in zip(dists, WEIGHTED_SIZES, strict=True)]
            covered = dict.fromkeys(WEIGHTED_METHODS, 0)
            inside, width = 0, 0.0
            for r in range(reps):
                cells = [
                    Cell(w, *_summary(x[r], (0.0, 1.0))[:3], None, _summary(x[r], (0.0, 1.0))[3])
                    for w, x in zip(shares, draws, strict=True)
                ]
                cis = (
                    _welch_t(cells),
                    _dean_pagano(cells, binary),
                    stratified_estimate(cells, method="wilson" if binary else "score-t").ci,
                )
                for m, (lo, hi) in zip(WEIGHTED_METHODS, cis, strict=True):
                    covered[m] += lo - 1e-12 <= mu <= hi + 1e-12
                lo, hi = cis[-1]
                inside += 0.0 <= lo <= hi <= 1.0
                width += hi - lo
            print(
                f"| {name} | {label} | "
                + " | ".join(f"{covered[m] / reps:.3f}" for m in WEIGHTED_METHODS)
                + f" | {inside / reps:.3f} | {width / reps:.3f} |"
            )


def paired_table(reps: int, rng: np.random.Generator) -> None:
    print(
        f"\nTraffic-weighted paired difference a - b, strata of {WEIGHTED_SIZES}, {reps} sets per row:\n"
    )
    print(
        "| pairs | shares | stratified t (before) | report (weighted_ci95) | report inside [-1,1] | report width |"
    )
    print("|---|---|---:|---:|---:|---:|")
    for name, dists in PAIRED.items():
        binary = name.startswith("binary")
        for label, shares in SHARES.items():
            mu = sum(w * m for w, (_, m) in zip(shares, dists, strict=True))
            covered_t, covered, inside, width = 0, 0, 0, 0.0
            draws = [d(rng, reps * n) for (d, _), n in zip(dists, WEIGHTED_SIZES, strict=True)]
            for r in range(reps):
                frames = []
                for h, ((a, b), n) in enumerate(zip(draws, WEIGHTED_SIZES, strict=True)):
                    sl = slice(r * n, (r + 1) * n)
                    frames.append((f"s{h}", a[sl], b[sl]))
                scores = pl.DataFrame(
                    {
                        "system": ["a"] * sum(WEIGHTED_SIZES) + ["b"] * sum(WEIGHTED_SIZES),
                        "query_id": [f"q{i}" for i in range(sum(WEIGHTED_SIZES))] * 2,
                        "value": np.concatenate([f[1] for f in frames] + [f[2] for f in frames]),
                    }
                )
                strata = pl.DataFrame(
                    {
                        "query_id": [f"q{i}" for i in range(sum(WEIGHTED_SIZES))],
                        "stratum": [f[0] for f in frames for _ in range(len(f[1]))],
                    }
                )
                traffic = pl.DataFrame({"stratum": ["s0", "s1", "s2"], "share": list(shares)})
                lo, hi = weighted_difference(scores, strata, traffic, "a", "b", binary=binary).ci
                covered += lo - 1e-12 <= mu <= hi + 1e-12
                inside += -1.0 <= lo <= hi <= 1.0
                width += hi - lo
                d = [f[1] - f[2] for f in frames]
                cells = [
                    Cell(w, len(x), float(x.mean()), float(x.var(ddof=1)), None)
                    for w, x in zip(shares, d, strict=True)
                ]
                tlo, thi = stratified_estimate(cells, method="student-t").ci
                covered_t += tlo - 1e-12 <= mu <= thi + 1e-12
            print(
                f"| {name} | {label} | {covered_t / reps:.3f} | {covered / reps:.3f} | "
                f"{inside / reps:.3f} | {width / reps:.3f} |"
            )


# --- the paired comparison (goldset compare, the report's paired rows, history's changes) ----
# One set of n queries scored by two systems; the target is the true mean difference a - b. The
# old interval was the percentile bootstrap of the mean difference (``stats.paired_comparison``
# before; the same method here with numpy's generator); the report's is ``difference_interval``.

PAIRED_SIZES = (5, 7, 10, 20, 50)


def _paired_independent(draw_a, mean_a: float, draw_b, mean_b: float):
    """a and b drawn independently per query: true difference mean_a - mean_b."""

    def draw(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
        return draw_a(rng, size), draw_b(rng, size)

    return draw, mean_a - mean_b


def _paired_shrunk(tie: float):
    """a uniform; b = a with probability ``tie``, else a x U (b never above a): true difference
    (1 - tie) x E[a] x E[1 - U] = (1 - tie) / 4."""

    def draw(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
        a = rng.random(size)
        b = np.where(rng.random(size) < tie, a, a * rng.random(size))
        return a, b

    return draw, (1.0 - tie) / 4.0


def _swap(pair):
    draw, mu = pair

    def swapped(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
        a, b = draw(rng, size)
        return b, a

    return swapped, -mu


_NEAR_1 = (_ones(0.9), 0.95)
_NEAR_0 = GRADED["85% zeros, else uniform"]
PAIRED_ONE = {
    "binary, no difference, 10% discordant each way": (True, _paired_binary(0.1, 0.1, 0.4)),
    "binary, many ties, 3% discordant one way": (True, _paired_binary(0.03, 0.0, 0.5)),
    "binary, a ahead by .30": (True, _paired_binary(0.35, 0.05, 0.3)),
    "binary, near +1 (.95 only a, .02 only b)": (True, _paired_binary(0.95, 0.02, 0.0)),
    "binary, near -1 (.02 only a, .95 only b)": (True, _paired_binary(0.02, 0.95, 0.0)),
    "graded, no difference, 70% ties, nDCG steps": (
        False,
        _paired_graded(0.7, GRADED["nDCG-like steps 0/.39/.5/.63/1"][0]),
    ),
    "graded, no difference, 90% ties, 70% zeros": (
        False,
        _paired_graded(0.9, GRADED["70% zeros, else uniform"][0]),
    ),
    "graded, 80% ties, else b below a (diff .05)": (False, _paired_shrunk(0.8)),
    "graded, a better (beta(5,2) vs beta(2,5))": (
        False,
        _paired_independent(
            lambda rng, s: rng.beta(5, 2, s), 5 / 7, lambda rng, s: rng.beta(2, 5, s), 2 / 7
        ),
    ),
    "graded, near +1 (90% ones vs 85% zeros)": (
        False,
        _paired_independent(_NEAR_1[0], _NEAR_1[1], _NEAR_0[0], _NEAR_0[1]),
    ),
    "graded, near -1 (85% zeros vs 90% ones)": (
        False,
        _swap(_paired_independent(_NEAR_1[0], _NEAR_1[1], _NEAR_0[0], _NEAR_0[1])),
    ),
}


def t_floor(d: np.ndarray) -> tuple[float, float]:
    """Student t on the differences with the variance floored at 1 / (n + 1) (one pseudo-query of
    full spread among n + 1, the floor the score interval gets from its pseudo-count), cut to
    [-1, 1]: the symmetric candidate."""
    n = len(d)
    var = max(float(d.var(ddof=1)), 1.0 / (n + 1))
    half = t_quantile(0.975, n - 1) * math.sqrt(var / n)
    return max(-1.0, float(d.mean()) - half), min(1.0, float(d.mean()) + half)


PAIRED_METHODS = {
    "percentile bootstrap (before)": lambda d, rng: percentile(d, rng),
    "BCa": lambda d, rng: bca(d, rng),
    "Student t": lambda d, rng: student_t(d.tolist()),
    "Student t, variance floor": lambda d, rng: t_floor(d),
    "report (difference_interval)": lambda d, rng: difference_interval(d.tolist()),
}


def paired_one_table(reps: int, rng: np.random.Generator) -> None:
    print(f"\nPaired difference a - b on one set of n queries, {reps} sets per row:\n")
    print(
        "| pairs | n | "
        + " | ".join(PAIRED_METHODS)
        + " | before: point intervals | report: point intervals | before width | report width |"
    )
    print("|---|---:|" + "---:|" * (len(PAIRED_METHODS) + 4))
    worst = dict.fromkeys(PAIRED_METHODS, 1.0)
    widths: dict[str, list[float]] = {m: [] for m in PAIRED_METHODS}
    for name, (_binary, (draw, mu)) in PAIRED_ONE.items():
        for n in PAIRED_SIZES:
            a, b = draw(rng, reps * n)
            d = (a - b).reshape(reps, n)
            covered = dict.fromkeys(PAIRED_METHODS, 0)
            width = dict.fromkeys(PAIRED_METHODS, 0.0)
            points = dict.fromkeys(PAIRED_METHODS, 0)
            for x in d:
                for m, fn in PAIRED_METHODS.items():
                    lo, hi = fn(x, rng)
                    lo = lo if lo == lo else -math.inf  # nan never claims coverage
                    covered[m] += lo - 1e-12 <= mu <= hi + 1e-12
                    width[m] += hi - lo if math.isfinite(hi - lo) else 2.0
                    points[m] += hi - lo <= 1e-12
            for m in PAIRED_METHODS:
                worst[m] = min(worst[m], covered[m] / reps)
                widths[m].append(width[m] / reps)
            first, last = next(iter(PAIRED_METHODS)), list(PAIRED_METHODS)[-1]
            print(
                f"| {name} | {n} | "
                + " | ".join(f"{covered[m] / reps:.3f}" for m in PAIRED_METHODS)
                + f" | {points[first] / reps:.3f} | {points[last] / reps:.3f}"
                + f" | {width[first] / reps:.3f} | {width[last] / reps:.3f} |"
            )
    print(
        "| **worst cell** | | "
        + " | ".join(f"**{worst[m]:.3f}**" for m in PAIRED_METHODS)
        + " | | | | |"
    )
    print(
        "| mean width | | "
        + " | ".join(f"{sum(w) / len(w):.3f}" for w in widths.values())
        + " | | | | |"
    )


POPULATION = 2000  # queries in the log the design samples from, split by the shares


def design_table(reps: int, rng: np.random.Generator) -> None:
    print(f"\nDesign-weighted (Hajek) headline, strata of {WEIGHTED_SIZES}, {reps} sets per row:\n")
    print(
        "| distributions | population shares | survey t, cut to [0,1] (before) | "
        "report (design_weighted_ci95) | report point intervals | report width |"
    )
    print("|---|---|---:|---:|---:|---:|")
    n_all = sum(WEIGHTED_SIZES)
    qids = [f"q{i}" for i in range(n_all)]
    names = [f"s{h}" for h, n in enumerate(WEIGHTED_SIZES) for _ in range(n)]
    for name, (binary, dists) in WEIGHTED.items():
        for label, shares in SHARES.items():
            mu = sum(w * m for w, (_, m) in zip(shares, dists, strict=True))
            pi = [n / (w * POPULATION) for n, w in zip(WEIGHTED_SIZES, shares, strict=True)]
            probabilities = pl.DataFrame(
                {
                    "query_id": qids,
                    "inclusion_probability": [
                        p for p, n in zip(pi, WEIGHTED_SIZES, strict=True) for _ in range(n)
                    ],
                }
            )
            strata = pl.DataFrame({"query_id": qids, "stratum": names})
            draws = [d(rng, (reps, n)) for (d, _), n in zip(dists, WEIGHTED_SIZES, strict=True)]
            before = report = points = 0
            width = 0.0
            for r in range(reps):
                values = np.concatenate([x[r] for x in draws])
                scores = pl.DataFrame({"system": "a", "query_id": qids, "value": values})
                est = hajek_estimates(scores, probabilities, strata, binary=binary)["a"]
                lo, hi = est.ci
                report += lo - 1e-12 <= mu <= hi + 1e-12
                points += hi - lo <= 1e-12
                width += hi - lo
                half = t_quantile(0.975, est.df) * est.se
                before += (
                    max(0.0, est.mean - half) - 1e-12 <= mu <= min(1.0, est.mean + half) + 1e-12
                )
            print(
                f"| {name} | {label} | {before / reps:.3f} | {report / reps:.3f} | "
                f"{points / reps:.3f} | {width / reps:.3f} |"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=4000, help="strata drawn per cell (default 4000)")
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument(
        "--only",
        choices=("stratum", "weighted", "design", "paired", "headline", *PARTS),
        help="one part: the per-stratum intervals, the weighted headline and difference, the "
        "design-weighted (Hajek) headline, or the paired difference on one set of queries",
    )
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    if args.only in PARTS:  # bench/interval_coverage_parts.py
        run_part(args.only, args.reps, rng)
        print(f"\n{time.perf_counter() - start:.0f} s")
        return
    if args.only in (None, "headline"):
        # The two headlines on goldset's own samples of count-dependent logs (headline_coverage.py).
        from headline_coverage import headline_table

        headline_table(min(args.reps, 500))
        if args.only == "headline":
            print(f"\n{time.perf_counter() - start:.0f} s")
            return
    if args.only in (None, "paired"):
        paired_one_table(max(1, args.reps // 2), rng)
        if args.only == "paired":
            print(f"\n{time.perf_counter() - start:.0f} s")
            return
    if args.only in (None, "design"):
        design_table(args.reps, rng)
        if args.only == "design":
            print(f"\n{time.perf_counter() - start:.0f} s")
            return
    if args.only != "stratum":
        weighted_table(args.reps, rng)
        paired_table(max(1, args.reps // 4), rng)
        if args.only == "weighted":
            print(f"\n{time.perf_counter() - start:.0f} s")
            return
    print(f"95% interval coverage, {args.reps} strata per graded cell (seed {args.seed})\n")
    head = "| distribution | n | " + " | ".join(METHODS) + " |"
    print(head)
    print("|---|---:|" + "---:|" * len(METHODS))
    widths: dict[str, list[float]] = {m: [] for m in METHODS}
    worst: dict[str, float] = dict.fromkeys(METHODS, 1.0)
    for name, (draw, mu) in GRADED.items():
        for n in SIZES:
            samples = draw(rng, (args.reps, n))
            row = []
            for method, fn in METHODS.items():
                covered = 0
                width = 0.0
                for x in samples:
                    lo, hi = fn(x, rng)
                    lo = lo if lo == lo else -math.inf  # nan (n too small) never claims coverage
                    covered += lo <= mu <= hi
                    width += hi - lo if math.isfinite(hi - lo) else 1.0
                cov = covered / args.reps
                worst[method] = min(worst[method], cov)
                widths[method].append(width / args.reps)
                row.append(f"{cov:.3f}")
            print(f"| {name} | {n} | " + " | ".join(row) + " |")
    print(
        "| **worst graded cell** | | " + " | ".join(f"**{worst[m]:.3f}**" for m in METHODS) + " |"
    )
    print(
        "| mean width, graded | | "
        + " | ".join(f"{sum(w) / len(w):.3f}" for w in widths.values())
        + " |"
    )
    print("\nBinary measures, Wilson with continuity correction, exact coverage (binomial sums):\n")
    print("| true rate | " + " | ".join(f"n = {n}" for n in SIZES) + " |")
    print("|---:|" + "---:|" * len(SIZES))
    for p in BINARY:
        print(f"| {p} | " + " | ".join(f"{wilson_exact(p, n):.3f}" for n in SIZES) + " |")
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
