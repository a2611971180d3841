"""How often does each 95% interval for a stratum's mean cover the true mean, at 7, 18 and 40 queries?

The question behind the report's choice of interval (issue 10): the percentile bootstrap it used
for graded measures under-covers in small strata. This draws many strata from known per-query
distributions shaped like retrieval scores (binary hits; graded values with many zeros, a ceiling
at 1, discrete nDCG-like steps, reciprocal ranks) and counts how often each method's interval holds
the distribution's true mean. Binary rows use Wilson (what the report keeps) and are exact
(binomial sums, no simulation). Graded rows compare the percentile bootstrap, BCa, Student t on the
per-query values and the library's choice (``mean_interval``), side by side.

    python bench/interval_coverage.py                 # 4000 strata per cell: 35 minutes on a loaded 2-core machine
    python bench/interval_coverage.py --reps 1000     # quicker, noisier (+-0.7 points)

numpy is used here for the bootstrap peers only; the library's intervals are pure Python/Polars.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from goldset_tui.eval.intervals import mean_interval, student_t, wilson

SIZES = (7, 18, 40)
BOOT = 2000


def _mix(zero: float, one: float, rest):  # noqa: ANN001, ANN202
    def draw(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
        u = rng.random(size)
        return np.where(u < zero, 0.0, np.where(u < zero + one, 1.0, rest(rng, size)))

    return draw


def _discrete(values: list[float], probs: list[float]):  # noqa: ANN202
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
    """Exact coverage of Wilson at true rate ``p``: sum of binomial probabilities of covering hits."""
    total = 0.0
    for hits in range(n + 1):
        lo, hi = wilson(hits, n)
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=4000, help="strata drawn per cell (default 4000)")
    ap.add_argument("--seed", type=int, default=20261130)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
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
    print("\nBinary measures, Wilson, exact coverage (binomial sums):\n")
    print("| true rate | " + " | ".join(f"n = {n}" for n in SIZES) + " |")
    print("|---:|" + "---:|" * len(SIZES))
    for p in BINARY:
        print(f"| {p} | " + " | ".join(f"{wilson_exact(p, n):.3f}" for n in SIZES) + " |")
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
