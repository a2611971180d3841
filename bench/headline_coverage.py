"""Do the two weighted headlines estimate what they say, on samples drawn by `goldset sample`?

A log of distinct queries with Zipf counts (count of the query ranked i: max(1, round(K / i^s)))
is split at random into three strata (half, 30% and 20% of the queries); each query's success is
drawn once, and depends on its count as it does in real products: 0.9 for a query searched 50
times or more, 0.6 for 5 to 49, 0.3 below 5. That log is fixed; only the sample changes. Each
repetition draws the golden set with goldset's own sampler (``sampling.sample.stratified_sample``,
weights min(count, 50), without replacement, seed = the repetition) and reads it through
``sampling.sample.report_frames``, exactly the files `goldset report` reads, then computes:

- the traffic-weighted headline before (the strata's plain means weighted by traffic share,
  ``weighting.weighted_estimates``), as one Hajek ratio per stratum (weights count / pi), and as
  the report computes it (``headline.per_search_estimates``: each stratum's head and tail as two
  Hajek ratios weighted by their known traffic shares), against the log's per-search rate
  sum(c y) / sum(c);
- the design-weighted headline before (the stratified Wilson interval with dispersion 1 on the
  Hajek cells, which dropped the design effect) and now (``headline.per_query_estimates``),
  against the log's distinct-query mean;
- "linearised t": mean +- t(n - H) x the linearised standard error, cut to [0, 1], the survey
  package's interval, for comparison.

Each row prints the truth, the mean estimate over the samples, coverage of the 95% interval and
its mean width.

    python bench/interval_coverage.py --only headline --reps 500
    python bench/headline_coverage.py --reps 500          # the same, alone
"""

from __future__ import annotations

import argparse
import math
import time

import polars as pl
from _needs import require  # bench/ is sys.path[0] when a script runs

from goldset_tui.eval.headline import per_query_estimates, per_search_estimates
from goldset_tui.eval.intervals import t_quantile
from goldset_tui.eval.weighting import Cell, stratified_estimate, weighted_estimates
from goldset_tui.sampling.sample import report_frames, stratified_sample

require("numpy")  # before the imports below: a missing extra is one line, not a traceback

import numpy as np  # noqa: E402

# name: (distinct queries, K, s, targets per stratum)
LOGS = {
    "12,500 queries, K 3000, s 1.0": (12_500, 3000.0, 1.0, (60, 50, 40)),
    "12,500 queries, K 5000, s 1.1": (12_500, 5000.0, 1.1, (60, 50, 40)),
    "12,500 queries, K 3000, s 1.0, small set": (12_500, 3000.0, 1.0, (30, 25, 20)),
    "3,000 queries, K 1000, s 1.0": (3_000, 1000.0, 1.0, (40, 30, 20)),
}
STRATA = ("a", "b", "c")


def count_log(n: int, k: float, s: float, seed: int) -> pl.DataFrame:
    """query, count, stratum, y: a fixed log whose success depends on the count."""
    rng = np.random.default_rng(seed)
    counts = np.maximum(1, np.round(k / np.arange(1, n + 1) ** s)).astype(np.int64)
    p = np.where(counts >= 50, 0.9, np.where(counts >= 5, 0.6, 0.3))
    return pl.DataFrame(
        {
            "query": [f"query {i}" for i in range(n)],
            "count": counts,
            "stratum": rng.choice(list(STRATA), p=[0.5, 0.3, 0.2], size=n),
            "y": (rng.random(n) < p).astype(float),
        }
    )


def _old_design(scores: pl.DataFrame, strata: pl.DataFrame) -> tuple[float, float]:
    """The design-weighted interval before: Hajek cells, stratified Wilson with dispersion 1."""
    d = scores.join(strata, on="query_id").with_columns(w=1.0 / pl.col("inclusion_probability"))
    total = float(d["w"].sum())
    mean = float((d["w"] * d["value"]).sum()) / total
    cells = []
    for (_,), g in d.group_by("stratum"):
        w, y = g["w"].to_numpy(), g["value"].to_numpy()
        n = len(y)
        z = w * (y - mean) / total
        v = n / (n - 1) * ((z - z.mean()) ** 2).sum()
        share = w.sum() / total
        cells.append(Cell(share, n, float((w * y).sum() / w.sum()), n * v / share**2, None, 1.0))
    return stratified_estimate(cells, method="wilson").ci


def _linearised_t(mean: float, se: float, n: int, h: int) -> tuple[float, float]:
    half = t_quantile(0.975, float(n - h)) * se
    return max(0.0, mean - half), min(1.0, mean + half)


def one_log(name: str, reps: int, seed: int) -> list[str]:
    n, k, s, sizes = LOGS[name]
    log = count_log(n, k, s, seed)
    targets = dict(zip(STRATA, sizes, strict=True))
    per_search = float((log["count"] * log["y"]).sum() / log["count"].sum())
    per_query = float(log["y"].mean())
    cols = {
        m: {"mean": 0.0, "cover": 0, "width": 0.0}
        for m in ("ts before", "ts one", "ts now", "ts lin-t", "dq before", "dq now", "dq lin-t")
    }
    y = dict(zip(log["query"].to_list(), log["y"].to_list(), strict=True))
    for r in range(reps):
        result = stratified_sample(log.drop("y"), targets, seed=r)
        frames = report_frames(result)
        strata, traffic = frames["strata"], frames["traffic"]
        scores = result.sample.select(
            "query_id",
            system=pl.lit("a"),
            value=pl.col("query").replace_strict(y, return_dtype=pl.Float64),
        )
        plain = weighted_estimates(scores, strata, traffic, method="wilson")["a"]
        now = per_search_estimates(scores, strata, traffic, binary=True)["a"]
        # One ratio per stratum: the traffic file without its head and tail columns.
        whole = traffic.select("stratum", "share", "design_effect_per_search")
        one = per_search_estimates(scores, strata, whole, binary=True)["a"]
        design = per_query_estimates(scores, strata, binary=True)["a"]
        found = {
            "ts before": (plain.mean, plain.ci, per_search),
            "ts one": (one.mean, one.ci, per_search),
            "ts now": (now.mean, now.ci, per_search),
            "ts lin-t": (now.mean, _linearised_t(now.mean, now.se, scores.height, 3), per_search),
            "dq before": (design.mean, _old_design(scores, strata), per_query),
            "dq now": (design.mean, design.ci, per_query),
            "dq lin-t": (
                design.mean,
                _linearised_t(design.mean, design.se, scores.height, 3),
                per_query,
            ),
        }
        for m, (mean, (lo, hi), truth) in found.items():
            cols[m]["mean"] += mean
            cols[m]["cover"] += lo - 1e-12 <= truth <= hi + 1e-12
            cols[m]["width"] += hi - lo if math.isfinite(hi - lo) else 1.0
    rows = []
    for m, c in cols.items():
        truth = per_search if m.startswith("ts") else per_query
        what = {
            "ts before": "traffic-weighted, plain stratum means (before)",
            "ts one": "traffic-weighted, Hajek count / pi, one ratio per stratum",
            "ts now": "traffic-weighted, Hajek count / pi, head and tail (report)",
            "ts lin-t": "traffic-weighted, head and tail, linearised t(n - H)",
            "dq before": "design-weighted, Wilson with dispersion 1 (before)",
            "dq now": "design-weighted, Hajek 1 / pi (report)",
            "dq lin-t": "design-weighted, Hajek, linearised t(n - H)",
        }[m]
        rows.append(
            f"| {name} | {what} | {truth:.3f} | {c['mean'] / reps:.3f} | "
            f"{c['cover'] / reps:.3f} | {c['width'] / reps:.3f} |"
        )
    return rows


def headline_table(reps: int, seed: int = 20261206) -> None:
    print(
        f"\nThe two headlines on goldset's own samples of logs whose success depends on the count, "
        f"{reps} samples per log (truth: the log's per-search rate for traffic-weighted rows, its "
        "distinct-query mean for design-weighted rows):\n"
    )
    print("| log | headline | truth | mean estimate | coverage | width |")
    print("|---|---|---:|---:|---:|---:|")
    for name in LOGS:
        for row in one_log(name, reps, seed):
            print(row, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=500, help="samples per log (default 500)")
    ap.add_argument("--seed", type=int, default=20261206, help="seed of the logs")
    args = ap.parse_args()
    start = time.perf_counter()
    headline_table(args.reps, args.seed)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
