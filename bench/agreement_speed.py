"""How fast are goldset's agreement figures against the krippendorff package and scikit-learn?

On synthetic 0-3 grades (labellers x units, a share of ratings missing, 40 units per query), it
times, REPEAT times each, and prints medians:

- Krippendorff's alpha, ordinal, with missing data: goldset against the ``krippendorff`` package
  (numpy);
- Cohen's quadratic kappa of the first two labellers: goldset against scikit-learn's
  ``cohen_kappa_score`` (both from the ratings, so goldset's pairing join is included);
- the whole ``agreement_report`` with its 1,000-replicate cluster bootstrap over queries (every
  alpha level, every pair's kappas, every cut-off), against a naive cluster bootstrap of the
  ordinal alpha alone with the krippendorff package (numpy draws of queries; timed on
  NAIVE_REPLICATES replicates and scaled to 1,000).

Each row asserts that both alphas and both kappas agree to 1e-9.

    .venv/bin/python bench/agreement_speed.py              # three sizes, 3 repeats
    .venv/bin/python bench/agreement_speed.py --repeat 1 --sizes small
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import krippendorff
import numpy as np
import polars as pl
from sklearn.metrics import cohen_kappa_score

from goldset_tui.agreement import coefficients as co
from goldset_tui.agreement.report import agreement_report
from goldset_tui.agreement.units import pair_frame, with_unit_ids
from goldset_tui.model import GradeScale

SIZES = {
    "small": (2, 6_400, 0.0),  # a 160-query golden set, 40 candidates each, two labellers
    "medium": (3, 10_000, 0.2),
    "large": (5, 100_000, 0.3),
}
UNITS_PER_QUERY = 40
NAIVE_REPLICATES = 100
GRADES = [0, 1, 2, 3]


def data(
    labellers: int, units: int, missing: float, seed: int = 1
) -> tuple[np.ndarray, pl.DataFrame]:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, units)
    grades = np.clip(
        truth[None, :] + rng.choice([-1, 0, 0, 0, 1], size=(labellers, units)), 0, 3
    ).astype(float)
    grades[rng.random((labellers, units)) < missing] = np.nan
    li, ui = np.nonzero(~np.isnan(grades))
    frame = pl.DataFrame(
        {
            "labeller": [f"l{i}" for i in li],
            "query_id": [f"q{u // UNITS_PER_QUERY:05d}" for u in ui],
            "doc_id": [f"d{u}" for u in ui],
            "grade": grades[li, ui].astype(np.int64),
            "seconds": 0.0,
            "note": None,
        },
        schema_overrides={"note": pl.Utf8},
    )
    return grades, with_unit_ids(frame)


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def ours_kappa(ratings: pl.DataFrame) -> float | None:
    return co.cohen_kappa(
        co.confusion_from_frame(pair_frame(ratings, "l0", "l1"), GRADES), "quadratic"
    )


def sklearn_kappa(grades: np.ndarray) -> float:
    both = ~np.isnan(grades[0]) & ~np.isnan(grades[1])
    return float(
        cohen_kappa_score(
            grades[0][both].astype(int),
            grades[1][both].astype(int),
            labels=GRADES,
            weights="quadratic",
        )
    )


def naive_cluster_bootstrap(grades: np.ndarray, replicates: int, seed: int = 0) -> None:
    queries = grades.shape[1] // UNITS_PER_QUERY
    columns = np.arange(grades.shape[1]).reshape(queries, UNITS_PER_QUERY)
    rng = np.random.default_rng(seed)
    for _ in range(replicates):
        picked = columns[rng.integers(0, queries, queries)].ravel()
        krippendorff.alpha(grades[:, picked], level_of_measurement="ordinal", value_domain=GRADES)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", nargs="+", choices=list(SIZES), default=list(SIZES))
    args = parser.parse_args()
    print(
        "| labellers x units (missing) | ratings | alpha: goldset | alpha: krippendorff | ratio "
        "| kappa: goldset | kappa: sklearn | ratio | report + bootstrap B=1000: goldset "
        "| naive bootstrap B=1000, alpha only: krippendorff |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in args.sizes:
        print(row(*SIZES[name], args.repeat), flush=True)


def row(labellers: int, units: int, missing: float, repeat: int) -> str:
    grades, ratings = data(labellers, units, missing)
    vals = ratings.select("unit", pl.col("grade").alias("value"))
    ours_alpha = co.krippendorff_alpha(vals, "ordinal", GRADES)
    their_alpha = krippendorff.alpha(grades, level_of_measurement="ordinal", value_domain=GRADES)
    assert ours_alpha is not None and abs(ours_alpha - their_alpha) < 1e-9
    k_ours, k_theirs = ours_kappa(ratings), sklearn_kappa(grades)
    assert k_ours is not None and abs(k_ours - k_theirs) < 1e-9
    a1 = median_time(lambda: co.krippendorff_alpha(vals, "ordinal", GRADES), repeat)
    a2 = median_time(
        lambda: krippendorff.alpha(grades, level_of_measurement="ordinal", value_domain=GRADES),
        repeat,
    )
    k1 = median_time(lambda: ours_kappa(ratings), repeat)
    k2 = median_time(lambda: sklearn_kappa(grades), repeat)
    report = median_time(
        lambda: agreement_report(ratings, GradeScale(), seed=0, replicates=1000), repeat
    )
    naive = median_time(lambda: naive_cluster_bootstrap(grades, NAIVE_REPLICATES), repeat) * (
        1000 / NAIVE_REPLICATES
    )
    return (
        f"| {labellers} x {units:,} ({missing:.0%}) | {ratings.height:,} "
        f"| {a1 * 1000:.1f} ms | {a2 * 1000:.1f} ms | {a2 / a1:.2f} "
        f"| {k1 * 1000:.1f} ms | {k2 * 1000:.1f} ms | {k2 / k1:.2f} "
        f"| {report:.2f} s | {naive:.1f} s |"
    )


if __name__ == "__main__":
    main()
