"""Four more parts of the coverage study (bench/interval_coverage.py --only PART), one function each:

- ``binary``: a stratum's rate of a 0/1 measure, exact coverage (binomial sums, no simulation) at
  n = 5, 7, 12, 18, 40, 100 on true rates 0.02-0.99 in steps of 0.001, and the mean width
  (expected over the binomial, averaged over the rates), for Wilson (before), Wilson with
  continuity correction (the report's), Clopper-Pearson, Blaker, mid-p, Jeffreys, Agresti-Coull.
- ``paired01``: the paired difference of a 0/1 measure where queries flip one way, exact
  (binomial sums over the flip count) on n = 5-18 and 30-300 by 10 and flip rates 0.5-10% by
  0.25 points: the difference score interval (before), Tango's score interval with z, with t(n - 1)
  (the report's), Bonett-Price; the interval each prints on 100 tied queries against the rule of
  three; and flips both ways (trinomial sums) on a few cells.
- ``alpha``: Krippendorff's alpha with 8, 15 and 30 queries, seeded simulation through the
  library: the percentile cluster bootstrap (before), BCa on the same replicates, the jackknife t
  on alpha, and the jackknife t on log(1 - alpha) (the report's).
- ``scoret``: the graded ``score-t`` interval on strata mostly at 0 or mostly at 1 (and the main
  study's distributions) at 7, 18, 40 and 100 queries, seeded: the pseudo-observations weighed
  against all n (before) or against the values inside (0, 1) (the report's), and Student t.

Each prints a Markdown table; docs/report.md and docs/agreement.md quote them.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import polars as pl
from _needs import require  # bench/ is sys.path[0] when a script runs

from goldset_tui.agreement.bootstrap import percentile_interval, resample_sums
from goldset_tui.agreement.intervals import coincidence_cells, figures, per_query_table
from goldset_tui.agreement.jackknife import jackknife_interval, leave_one_out
from goldset_tui.eval.intervals import (
    difference_interval,
    score_from,
    student_t_from,
    wilson,
    wilson_cc,
)
from goldset_tui.eval.paired_interval import paired_rate_interval, tango_statistic

require("numpy", "scipy")  # before the imports below: a missing extra is one line, not a traceback

import numpy as np  # noqa: E402
from scipy import optimize, stats  # noqa: E402

Z = NormalDist().inv_cdf(0.975)

# --- binary ------------------------------------------------------------------------------------

BINARY_SIZES = (5, 7, 12, 18, 40, 100)


def _clopper_pearson(x: int, n: int) -> tuple[float, float]:
    lo = 0.0 if x == 0 else stats.beta.ppf(0.025, x, n - x + 1)
    hi = 1.0 if x == n else stats.beta.ppf(0.975, x + 1, n - x)
    return float(lo), float(hi)


def _mid_p(x: int, n: int) -> tuple[float, float]:
    def upper_tail(p: float) -> float:
        return stats.binom.sf(x, n, p) + 0.5 * stats.binom.pmf(x, n, p) - 0.025

    def lower_tail(p: float) -> float:
        return stats.binom.cdf(x - 1, n, p) + 0.5 * stats.binom.pmf(x, n, p) - 0.025

    lo = 0.0 if x == 0 else optimize.brentq(upper_tail, 1e-12, 1 - 1e-12)
    hi = 1.0 if x == n else optimize.brentq(lower_tail, 1e-12, 1 - 1e-12)
    return float(lo), float(hi)


def _jeffreys(x: int, n: int) -> tuple[float, float]:
    lo = 0.0 if x == 0 else stats.beta.ppf(0.025, x + 0.5, n - x + 0.5)
    hi = 1.0 if x == n else stats.beta.ppf(0.975, x + 0.5, n - x + 0.5)
    return float(lo), float(hi)


def _agresti_coull(x: int, n: int) -> tuple[float, float]:
    nt = n + Z * Z
    pt = (x + Z * Z / 2) / nt
    half = Z * math.sqrt(pt * (1 - pt) / nt)
    return max(0.0, pt - half), min(1.0, pt + half)


def _blaker_all(n: int, grid: int = 20_001) -> list[tuple[float, float]]:
    """Blaker's exact interval for every x of n, as the hull of {p : acceptability > 0.05} on a
    grid of p (step 5e-5; the ends are within a grid step of the exact ones)."""
    p = np.linspace(0.0, 1.0, grid)[1:-1]
    k = np.arange(n + 1)[:, None]
    cdf = stats.binom.cdf(k, n, p)  # P(X <= k)
    sf = stats.binom.sf(k - 1, n, p)  # P(X >= k)
    out = []
    for x in range(n + 1):
        low_tail, high_tail = cdf[x], sf[x]
        # The smaller tail at x, plus the largest tail on the other side that is no larger.
        other_high = np.where(sf <= low_tail * (1 + 1e-7), sf, 0.0).max(axis=0)
        other_low = np.where(cdf <= high_tail * (1 + 1e-7), cdf, 0.0).max(axis=0)
        acc = np.where(low_tail < high_tail, low_tail + other_high, high_tail + other_low)
        inside = p[np.minimum(acc, 1.0) > 0.05]
        lo = 0.0 if x == 0 else float(inside.min()) - 5e-5
        hi = 1.0 if x == n else float(inside.max()) + 5e-5
        out.append((max(0.0, lo), min(1.0, hi)))
    return out


BINARY_METHODS = {
    "Wilson (before)": wilson,
    "Wilson, continuity correction (report)": wilson_cc,
    "Clopper-Pearson": _clopper_pearson,
    "Blaker": None,  # computed for all x at once
    "mid-p": _mid_p,
    "Jeffreys": _jeffreys,
    "Agresti-Coull": _agresti_coull,
}


def binary_table() -> None:
    rates = np.round(np.arange(0.02, 0.99 + 1e-9, 0.001), 3)
    print("\nA stratum's 0/1 rate: exact coverage on true rates 0.02-0.99 (step 0.001)\n")
    print("worst coverage / share of rates under 0.93 / mean width\n")
    print("| n | " + " | ".join(BINARY_METHODS) + " |")
    print("|---:|" + "---|" * len(BINARY_METHODS))
    for n in BINARY_SIZES:
        pmf = stats.binom.pmf(np.arange(n + 1)[:, None], n, rates[None, :])
        cells = []
        for fn in BINARY_METHODS.values():
            ends = np.array(_blaker_all(n) if fn is None else [fn(x, n) for x in range(n + 1)])
            holds = (ends[:, :1] <= rates[None, :]) & (rates[None, :] <= ends[:, 1:])
            coverage = (pmf * holds).sum(axis=0)
            width = ((ends[:, 1] - ends[:, 0])[:, None] * pmf).sum(axis=0).mean()
            cells.append(f"{coverage.min():.3f} / {np.mean(coverage < 0.93):.3f} / {width:.3f}")
        print(f"| {n} | " + " | ".join(cells) + " |")


# --- paired01 ----------------------------------------------------------------------------------

PAIRED01_SIZES = (5, 7, 12, 18, *range(30, 301, 10))
FLIPS = tuple(np.round(np.arange(0.005, 0.1001, 0.0025), 4))


def _tango_z(b: int, c: int, n: int) -> tuple[float, float]:
    """Tango's interval with the normal quantile (root-finding on the library's statistic)."""
    d0 = (b - c) / n
    lo = (
        -1.0
        if tango_statistic(b, c, n, -1 + 1e-12) <= Z
        else optimize.brentq(lambda d: tango_statistic(b, c, n, d) - Z, -1 + 1e-12, d0)
    )
    hi = (
        1.0
        if tango_statistic(b, c, n, 1 - 1e-12) >= -Z
        else optimize.brentq(lambda d: tango_statistic(b, c, n, d) + Z, d0, 1 - 1e-12)
    )
    return lo, hi


def _bonett_price(b: int, c: int, n: int) -> tuple[float, float]:
    p1, p2 = (b + 1) / (n + 2), (c + 1) / (n + 2)
    d = p1 - p2
    se = math.sqrt((p1 + p2 - d * d) / (n + 2))
    return max(-1.0, d - Z * se), min(1.0, d + Z * se)


def _difference_score(b: int, c: int, n: int) -> tuple[float, float]:
    return difference_interval([1.0] * b + [-1.0] * c + [0.0] * (n - b - c))


PAIRED01_METHODS = {
    "difference score (before)": _difference_score,
    "Tango, z": _tango_z,
    "Tango, t(n-1) (report)": paired_rate_interval,
    "Bonett-Price": _bonett_price,
}


def paired01_table() -> None:
    print("\nPaired 0/1 difference, queries flipping one way: exact coverage\n")
    print(
        f"n in {PAIRED01_SIZES[:4]} and 30-300 by 10; flip rates 0.5-10% by 0.25 points "
        f"({len(PAIRED01_SIZES) * len(FLIPS)} cells)\n"
    )
    print("| method | worst cell | share of cells under 0.93 | mean width | 100 tied queries |")
    print("|---|---:|---:|---:|---|")
    for method, fn in PAIRED01_METHODS.items():
        worst, under, widths = (1.0, None), 0, []
        for n in PAIRED01_SIZES:
            ends = np.array([fn(b, 0, n) for b in range(n + 1)])
            for flip in FLIPS:
                pmf = stats.binom.pmf(np.arange(n + 1), n, flip)
                holds = (ends[:, 0] - 1e-12 <= flip) & (flip <= ends[:, 1] + 1e-12)
                coverage = float(pmf[holds].sum())
                under += coverage < 0.93
                widths.append(float((pmf * (ends[:, 1] - ends[:, 0])).sum()))
                if coverage < worst[0]:
                    worst = (coverage, (n, flip))
        lo, hi = fn(0, 0, 100)
        cells = len(PAIRED01_SIZES) * len(FLIPS)
        print(
            f"| {method} | {worst[0]:.3f} (n={worst[1][0]}, {worst[1][1]:.2%}) | "
            f"{under / cells:.3f} | {np.mean(widths):.3f} | [{lo:+.4f}, {hi:+.4f}] |"
        )
    print("\nFlips both ways (trinomial sums), the report's interval:\n")
    print("| n | a only | b only | coverage |")
    print("|---:|---:|---:|---:|")
    for n in (30, 100, 200):
        for only_a, only_b in ((0.05, 0.01), (0.02, 0.01), (0.1, 0.05), (0.2, 0.05), (0.05, 0.05)):
            truth, total = only_a - only_b, 0.0
            for k in range(n + 1):
                p_k = stats.binom.pmf(k, n, only_a)
                if p_k < 1e-12:
                    continue
                js = np.arange(n - k + 1)
                p_j = stats.binom.pmf(js, n - k, only_b / (1 - only_a))
                keep = p_j > 1e-12
                ends = [paired_rate_interval(k, int(j), n) for j in js[keep]]
                holds = np.array([lo <= truth <= hi for lo, hi in ends])
                total += p_k * float(p_j[keep][holds].sum())
            print(f"| {n} | {only_a} | {only_b} | {total:.3f} |")


# --- alpha -------------------------------------------------------------------------------------

ALPHA_GRADES = [0, 1, 2, 3]
ALPHA_MODELS = {"error 1-20% a query": (0.01, 0.2), "error 2-40% a query": (0.02, 0.4)}
ALPHA_QUERIES = (8, 15, 30)


def _ratings(rng: np.random.Generator, queries: int, low: float, high: float) -> pl.DataFrame:
    """Three labellers, 3-14 documents a query, grades 0-3; per query its own mix of true grades
    and its own error rate (a uniformly random grade), drawn from [low, high]."""
    query_ids, units, grades = [], [], []
    for q in range(queries):
        error = rng.uniform(low, high)
        docs = int(rng.integers(3, 15))
        true = rng.choice(4, docs, p=rng.dirichlet(np.ones(4)))
        wrong = rng.random((docs, 3)) < error
        given = np.where(wrong, rng.integers(0, 4, (docs, 3)), true[:, None])
        query_ids += [f"q{q}"] * (docs * 3)
        units += [f"q{q}-d{d}" for d in range(docs) for _ in range(3)]
        grades += given.ravel().tolist()
    return pl.DataFrame({"query_id": query_ids, "unit": units, "grade": grades})


def _alpha_intervals(table: pl.DataFrame, seed: int) -> dict[str, tuple[float, float] | None]:
    name = "alpha.ordinal"
    whole, left_out = leave_one_out(
        table.columns, table.rows(), lambda s: figures(s, ALPHA_GRADES, 0)
    )
    theta = whole[name]
    jack = [f[name] for f in left_out]
    sums = resample_sums(table, replicates=1000, seed=seed).drop("rep")
    boot = [figures(row, ALPHA_GRADES, 0)[name] for row in sums.iter_rows(named=True)]
    out: dict[str, tuple[float, float] | None] = {"percentile (before)": percentile_interval(boot)}
    defined = np.array([b for b in boot if b is not None])
    q = len(jack)
    if theta is None or any(j is None for j in jack) or len(defined) == 0:
        return out | {
            "BCa": None,
            "jackknife t": None,
            "jackknife t, log(1 - alpha) (report)": None,
        }
    values = np.array(jack, dtype=float)
    nd = NormalDist()
    below = float(np.mean(defined < theta) + 0.5 * np.mean(defined == theta))
    z0 = nd.inv_cdf(min(max(below, 1e-6), 1 - 1e-6))
    d = values.mean() - values
    denominator = 6 * float((d**2).sum()) ** 1.5
    a = float((d**3).sum()) / denominator if denominator > 0 else 0.0
    ends = []
    for tail in (0.025, 0.975):
        z = nd.inv_cdf(tail)
        ends.append(float(np.quantile(defined, nd.cdf(z0 + (z0 + z) / (1 - a * (z0 + z))))))
    se = math.sqrt((q - 1) / q * float(((values - values.mean()) ** 2).sum()))
    t = stats.t.ppf(0.975, q - 1)
    return out | {
        "BCa": (ends[0], ends[1]),
        "jackknife t": (theta - t * se, theta + t * se),
        "jackknife t, log(1 - alpha) (report)": jackknife_interval(theta, jack, 0.95),
    }


def alpha_table(reps: int, rng: np.random.Generator) -> None:
    print(f"\nKrippendorff's alpha (ordinal), three labellers, {reps} studies per row:\n")
    methods = ("percentile (before)", "BCa", "jackknife t", "jackknife t, log(1 - alpha) (report)")
    print("| labellers' errors | true alpha | queries | " + " | ".join(methods) + " |")
    print("|---|---:|---:|" + "---|" * len(methods))
    for label, (low, high) in ALPHA_MODELS.items():
        many = _ratings(rng, 20_000, low, high)
        sums = per_query_table(coincidence_cells(many, ALPHA_GRADES)).sum().row(0, named=True)
        truth = figures(sums, ALPHA_GRADES, 0)["alpha.ordinal"]
        assert truth is not None
        for queries in ALPHA_QUERIES:
            covered = dict.fromkeys(methods, 0)
            width = dict.fromkeys(methods, 0.0)
            for study in range(reps):
                table = per_query_table(
                    coincidence_cells(_ratings(rng, queries, low, high), ALPHA_GRADES)
                )
                for method, interval in _alpha_intervals(table, study).items():
                    if interval is not None:
                        covered[method] += interval[0] <= truth <= interval[1]
                        width[method] += interval[1] - interval[0]
            print(
                f"| {label} | {truth:.3f} | {queries} | "
                + " | ".join(f"{covered[m] / reps:.3f} ({width[m] / reps:.3f})" for m in methods)
                + " |"
            )


# --- scoret ------------------------------------------------------------------------------------


def _mix(zero: float, one: float, rest):
    def draw(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
        u = rng.random(size)
        return np.where(u < zero, 0.0, np.where(u < zero + one, 1.0, rest(rng, size)))

    return draw


def _uniform(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    return rng.random(size)


BOUND_HEAVY = {
    "95% zeros, else uniform": (_mix(0.95, 0.0, _uniform), 0.025),
    "97% zeros, else uniform": (_mix(0.97, 0.0, _uniform), 0.015),
    "90% zeros, else beta(1,4)": (_mix(0.9, 0.0, lambda r, s: r.beta(1, 4, s)), 0.02),
    "90% ones, else uniform": (_mix(0.0, 0.9, _uniform), 0.95),
    "95% ones, else uniform": (_mix(0.0, 0.95, _uniform), 0.975),
    "85% ones, else beta(4,1)": (_mix(0.0, 0.85, lambda r, s: r.beta(4, 1, s)), 0.85 + 0.15 * 0.8),
}
SCORET_METHODS = {
    "score-t, pseudo-observations against n (before)": lambda n, m, v, a: score_from(
        n, m, v, a, inside=False
    ),
    "score-t, against the values inside (report)": lambda n, m, v, a: score_from(n, m, v, a),
    "Student t": lambda n, m, v, a: student_t_from(n, m, v),
}


def scoret_table(reps: int, rng: np.random.Generator, graded: dict) -> None:  # type: ignore[type-arg]
    print(f"\nGraded score-t on strata mostly at 0 or 1, {reps} strata per row:\n")
    print("| distribution | n | " + " | ".join(SCORET_METHODS) + " |")
    print("|---|---:|" + "---|" * len(SCORET_METHODS))
    worst = dict.fromkeys(SCORET_METHODS, 1.0)
    widths: dict[str, list[float]] = {m: [] for m in SCORET_METHODS}
    for name, (draw, mu) in {**BOUND_HEAVY, **graded}.items():
        for n in (7, 18, 40, 100):
            x = draw(rng, (reps, n))
            means, variances = x.mean(axis=1), x.var(axis=1, ddof=1)
            at = np.isin(x, (0.0, 1.0)).mean(axis=1)
            cells = []
            for method, fn in SCORET_METHODS.items():
                covered, width = 0, 0.0
                for m, v, a in zip(means, variances, at, strict=True):
                    lo, hi = fn(n, float(m), float(v), float(a))
                    covered += lo <= mu <= hi
                    width += hi - lo
                worst[method] = min(worst[method], covered / reps)
                widths[method].append(width / reps)
                cells.append(f"{covered / reps:.3f} ({width / reps:.3f})")
            print(f"| {name} | {n} | " + " | ".join(cells) + " |")
    print("| **worst cell** | | " + " | ".join(f"**{w:.3f}**" for w in worst.values()) + " |")
    print("| mean width | | " + " | ".join(f"{np.mean(w):.3f}" for w in widths.values()) + " |")
