"""How often do the decision block's and drift's 95% intervals hold what they estimate?

1. Routed with errors (``decisions.router_error.misrouting``): a router of known precision per
   stratum over the traffic; golden sets of 7, 18 and 40 queries per stratum drawn independently
   (as goldset's sampler draws them), each query scored by both systems; 0/1 and graded scores,
   the small stratum carrying the traffic or not. The truth is worked from the true means by the
   model (tests/unit/report/test_routed_with_errors_coverage.py holds the same rows at 1,000 sets).
2. A stratum's share change between two logs (``drift.shares.newcombe_difference``): logs of
   20,000 searches, the stratum's share 2%, 10% or 40% in the old log and moving by 0 or 2 points.
   First every search an independent draw (what the interval assumes), then searches in bursts
   (each distinct query typed a geometric number of times, mean 5: one person or a bot repeating
   itself), where the interval treats 5 repeats as 5 draws and is too narrow. The truth there is
   the share of the process that wrote the log, not of the log itself.

    python bench/decision_coverage.py                 # 2,000 sets a row (about 2 minutes)
    python bench/decision_coverage.py --reps 500      # quicker, noisier (+-1 point)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import polars as pl
from _needs import require  # bench/ is sys.path[0] when a script runs

require("numpy")  # before the import below, so a missing extra is one line, not a traceback
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "unit" / "report"), str(ROOT)]

import test_routed_with_errors_coverage as routed  # noqa: E402

from goldset_tui.decisions.router_error import misrouting, precisions  # noqa: E402
from goldset_tui.drift.shares import newcombe_difference  # noqa: E402


def routed_rows(reps: int) -> None:
    print(f"routed with errors: precision {routed.PRECISION} (c assumed 1), sizes {routed.SIZES}")
    print(f"{'scores':<8} {'shares':<16} {'truth':>7} {'covered':>8} {'mean width':>10}")
    for binary in (True, False):
        for shares in ((0.6, 0.3, 0.1), (0.1, 0.3, 0.6), (0.34, 0.33, 0.33)):
            share = dict(zip(routed.STRATA, shares, strict=True))
            means = {
                (s, g): routed._mean(binary, s, k)
                for s in ("x", "y")
                for k, g in enumerate(routed.STRATA)
            }
            mu = routed.truth(share, means)
            plan = precisions(list(routed.STRATA), share, routed.PRECISION)
            sizes = routed.SIZES
            ids = [f"{g}{i}" for g, n in zip(routed.STRATA, sizes, strict=True) for i in range(n)]
            strata = pl.DataFrame(
                {
                    "query_id": ids,
                    "stratum": [
                        g for g, n in zip(routed.STRATA, sizes, strict=True) for _ in range(n)
                    ],
                }
            )
            rng = np.random.default_rng(7 + int(binary) + int(shares[0] * 100))
            covered, widths = 0, []
            for _ in range(reps):
                values = {
                    s: np.concatenate(
                        [routed._draw(rng, binary, s, k, n) for k, n in enumerate(sizes)]
                    ).tolist()
                    for s in ("x", "y")
                }
                scores = pl.DataFrame(
                    {
                        "system": ["x"] * len(ids) + ["y"] * len(ids),
                        "query_id": ids + ids,
                        "value": values["x"] + values["y"],
                    }
                )
                lo, hi = misrouting(
                    scores,
                    strata,
                    share,
                    routed.ROUTES,
                    plan,
                    table_method="wilson" if binary else "score-t",
                    bounded=True,
                ).overall.ci
                covered += lo <= mu <= hi
                widths.append(hi - lo)
            kind = "0/1" if binary else "graded"
            print(
                f"{kind:<8} {str(shares):<16} {mu:>7.4f} {covered / reps:>8.3f} "
                f"{np.mean(widths):>10.3f}",
                flush=True,
            )


def _log_hits(rng: np.random.Generator, share: float, searches: int, burst: float) -> int:
    """Searches of the stratum in a log of ``searches``: independent draws (burst 1), or distinct
    queries each typed a geometric number of times with mean ``burst``, drawn until the log
    holds ``searches`` searches."""
    if burst == 1:
        return int(rng.binomial(searches, share))
    hits = total = 0
    while total < searches:
        n = int(rng.geometric(1 / burst))
        n = min(n, searches - total)
        total += n
        hits += n if rng.random() < share else 0
    return hits


def drift_rows(reps: int) -> None:
    searches = 20_000
    print(f"\nstratum share change, logs of {searches:,} searches each")
    print(f"{'searches':<22} {'old share':>9} {'change':>7} {'covered':>8}")
    for burst, label in ((1, "independent"), (5, "in bursts (mean 5)")):
        for p_old in (0.02, 0.10, 0.40):
            for change in (0.0, 0.02):
                rng = np.random.default_rng(int(p_old * 1000) + int(change * 100) + burst)
                covered = 0
                for _ in range(reps):
                    a = _log_hits(rng, p_old, searches, burst)
                    b = _log_hits(rng, p_old + change, searches, burst)
                    lo, hi = newcombe_difference(b, searches, a, searches)
                    covered += lo <= change <= hi
                print(
                    f"{label:<22} {p_old:>9.2f} {change:>+7.2f} {covered / reps:>8.3f}",
                    flush=True,
                )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--only", choices=["routed", "drift"])
    args = parser.parse_args()
    started = time.monotonic()
    if args.only in (None, "routed"):
        routed_rows(args.reps)
    if args.only in (None, "drift"):
        drift_rows(args.reps)
    print(f"\n({time.monotonic() - started:.0f} s, load {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
