"""Exact coverage of the traffic-weighted paired difference of a 0/1 measure (interval_coverage.py
--only wpaired01): the report's weighted difference over several strata when a few queries flip.

Each stratum h holds n_h queries; a query is won by a alone with probability p_a, by b alone with
p_b (else tied), independently; the truth is sum_h W_h (p_a - p_b). Coverage is exact: the sum,
over every combination of the strata's (only_a, only_b) counts with probability above 1e-10 (the
rest counted as misses), of the product of their trinomial probabilities
where the interval holds the truth. Methods: the difference score interval the report used
before (``weighting.stratified_estimate`` on (d + 1) / 2, score-t with one pseudo-query of
spread), and the report's, each stratum's Tango interval combined by MOVER
(``paired_interval.stratified_paired_rates``). Each cell: coverage (mean width).
"""

from __future__ import annotations

import itertools
import math

from _needs import require  # bench/ is sys.path[0] when a script runs

from goldset_tui.eval.intervals import DIFFERENCE_PSEUDO_COUNT, SCORE_T
from goldset_tui.eval.paired_interval import PairedCell, stratified_paired_rates
from goldset_tui.eval.weighting import Cell, stratified_estimate

require("scipy")  # before the import below: a missing extra is one line

from scipy import stats  # noqa: E402

SIZES = ((5, 7, 12), (7, 18, 40), (18, 40, 100))
SHARES = {
    "small heavy .6/.3/.1": (0.6, 0.3, 0.1),
    "large heavy .1/.3/.6": (0.1, 0.3, 0.6),
    "large dominant .02/.03/.95": (0.02, 0.03, 0.95),
}
# name: per-stratum (p_a, p_b), the same in every stratum unless three are given
FLIPS = {
    "1% one way": [(0.01, 0.0)],
    "2% one way": [(0.02, 0.0)],
    "5% one way": [(0.05, 0.0)],
    "10% one way": [(0.1, 0.0)],
    "30% one way": [(0.3, 0.0)],
    "1% each way": [(0.01, 0.01)],
    "none / 2% / 10% one way": [(0.0, 0.0), (0.02, 0.0), (0.1, 0.0)],
    "10% / 2% / none one way": [(0.1, 0.0), (0.02, 0.0), (0.0, 0.0)],
}
CUT = 1e-10  # outcomes of a stratum less likely than this are left out (counted as misses)


def outcomes(n: int, pa: float, pb: float) -> list[tuple[int, int, float]]:
    """(only_a, only_b, probability) of one stratum, those above ``CUT``."""
    out = []
    for a in range(n + 1):
        pa_k = float(stats.binom.pmf(a, n, pa))
        if pa_k < CUT:
            continue
        rest = pb / (1 - pa) if pa < 1 else 0.0
        for b in range(n - a + 1):
            p = pa_k * float(stats.binom.pmf(b, n - a, rest))
            if p >= CUT:
                out.append((a, b, p))
    return out


def before(cells: list[PairedCell]) -> tuple[float, float]:
    """The difference score interval the report used before (weighting.weighted_difference)."""
    rows = []
    for c in cells:
        d = (c.only_a - c.only_b) / c.n
        var = ((c.only_a + c.only_b) - c.n * d * d) / (c.n - 1)
        rows.append(Cell(c.share, c.n, (d + 1) / 2, var / 4, None, 1.0))
    est = stratified_estimate(rows, method=SCORE_T, pseudo_count=DIFFERENCE_PSEUDO_COUNT)
    total = sum(c.share for c in cells)
    lo, hi = est.ci
    return 2 * lo - total, 2 * hi - total


def report(cells: list[PairedCell]) -> tuple[float, float]:
    return stratified_paired_rates(cells)[1]


METHODS = {"difference score (before)": before, "Tango per stratum, MOVER (report)": report}


def exact_coverage(
    sizes: tuple[int, ...], shares: tuple[float, ...], flips: list[tuple[float, float]]
) -> dict[str, tuple[float, float]]:
    """{method: (coverage, mean width)}, exact."""
    per = flips * len(sizes) if len(flips) == 1 else flips
    truth = sum(w * (pa - pb) for w, (pa, pb) in zip(shares, per, strict=True))
    strata = [outcomes(n, pa, pb) for n, (pa, pb) in zip(sizes, per, strict=True)]
    out = {}
    for name, method in METHODS.items():
        covered = width = 0.0
        for combo in itertools.product(*strata):
            p = math.prod(o[2] for o in combo)
            cells = [
                PairedCell(w, n, a, b) for w, n, (a, b, _) in zip(shares, sizes, combo, strict=True)
            ]
            lo, hi = method(cells)
            covered += p * (lo - 1e-12 <= truth <= hi + 1e-12)
            width += p * (hi - lo)
        out[name] = (covered, width)
    return out


def wpaired01_table() -> None:
    print("\nTraffic-weighted paired difference of a 0/1 measure, exact; coverage (mean width):\n")
    print("| strata sizes | shares | flips | " + " | ".join(METHODS) + " |")
    print("|---|---|---|" + "---|" * len(METHODS))
    worst = dict.fromkeys(METHODS, 1.0)
    for sizes in SIZES:
        for label, shares in SHARES.items():
            for flip_name, flips in FLIPS.items():
                if sizes[-1] > 40 and any(pb > 0 for _, pb in flips):
                    continue  # flips both ways at 100 queries: too many outcomes to sum here
                row = exact_coverage(sizes, shares, flips)
                for m, (c, _) in row.items():
                    worst[m] = min(worst[m], c)
                print(
                    f"| {'/'.join(map(str, sizes))} | {label} | {flip_name} | "
                    + " | ".join(f"{c:.3f} ({w:.3f})" for c, w in row.values())
                    + " |",
                    flush=True,
                )
    print("| **worst** | | | " + " | ".join(f"**{worst[m]:.3f}**" for m in METHODS) + " |")
