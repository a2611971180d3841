"""How fast are goldset's agreement figures against the krippendorff package and scikit-learn?

On synthetic 0-3 grades (labellers x units, a share of ratings missing, 40 units per query), each
tool runs in a child process of its own and reports CPU time (user + system, every thread, from
``time.process_time`` around the computation: the machine is shared, so wall time means little)
and the child's peak resident memory (``ru_maxrss`` from ``os.wait4``: start-up, imports and
reading the data included). Medians of REPEAT computations:

- Krippendorff's alpha, ordinal, with missing data: goldset against the ``krippendorff`` package
  (numpy);
- Cohen's quadratic kappa of the first two labellers: goldset against scikit-learn's
  ``cohen_kappa_score`` (both from the ratings, so goldset's pairing join is included);
- the whole ``agreement_report`` with its 1,000-replicate cluster bootstrap over queries (every
  alpha level, every pair's kappas, every cut-off), against a naive cluster bootstrap of the
  ordinal alpha alone with the krippendorff package (numpy draws of queries; timed on
  NAIVE_REPLICATES replicates and scaled to 1,000).

The data are written once to a temporary folder by the parent (which never imports goldset), so
no child's peak includes making them. Each row checks that both alphas and both kappas agree to
1e-9.

    python bench/agreement_speed.py              # three sizes, 3 repeats
    python bench/agreement_speed.py --repeat 1 --sizes small
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _needs import require  # bench/ is sys.path[0] when a script runs

SIZES = {
    "small": (2, 6_400, 0.0),  # a 160-query golden set, 40 candidates each, two labellers
    "medium": (3, 10_000, 0.2),
    "large": (5, 100_000, 0.3),
}
UNITS_PER_QUERY = 40
NAIVE_REPLICATES = 100
GRADES = [0, 1, 2, 3]
TASKS = ("alpha-goldset", "alpha-krippendorff", "kappa-goldset", "kappa-sklearn")
TASKS += ("report-goldset", "naive-krippendorff")


def make_data(folder: Path, labellers: int, units: int, missing: float, seed: int = 1) -> None:
    """grades.npy (labellers x units, NaN = missing) and ratings.parquet (goldset's frame)."""
    import numpy as np
    import polars as pl

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
    np.save(folder / "grades.npy", grades)
    frame.write_parquet(folder / "ratings.parquet")


def child(task: str, folder: Path, repeat: int) -> None:
    """Run one task ``repeat`` times; print its value and median CPU seconds as JSON."""
    if task.endswith("goldset"):
        import polars as pl

        from goldset_tui.agreement import coefficients as co
        from goldset_tui.agreement.report import agreement_report
        from goldset_tui.agreement.units import pair_frame, with_unit_ids
        from goldset_tui.model import GradeScale

        ratings = with_unit_ids(pl.read_parquet(folder / "ratings.parquet"))
        vals = ratings.select("unit", pl.col("grade").alias("value"))
        fn: Callable[[], object] = {
            "alpha-goldset": lambda: co.krippendorff_alpha(vals, "ordinal", GRADES),
            "kappa-goldset": lambda: co.cohen_kappa(
                co.confusion_from_frame(pair_frame(ratings, "l0", "l1"), GRADES), "quadratic"
            ),
            "report-goldset": lambda: agreement_report(
                ratings, GradeScale(), seed=0, replicates=1000
            )["alpha"]["ordinal_ci95"],
        }[task]
    else:
        # Imported before the clock starts, as goldset's modules are.
        import krippendorff  # noqa: F401
        import numpy as np
        from sklearn.metrics import cohen_kappa_score  # noqa: F401

        grades = np.load(folder / "grades.npy")
        fn = {
            "alpha-krippendorff": lambda: _krippendorff(grades),
            "kappa-sklearn": lambda: _sklearn_kappa(grades),
            "naive-krippendorff": lambda: _naive_cluster_bootstrap(grades, NAIVE_REPLICATES),
        }[task]
    times, value = [], None
    for _ in range(repeat):
        start = time.process_time()
        value = fn()
        times.append(time.process_time() - start)
    scale = 1000 / NAIVE_REPLICATES if task == "naive-krippendorff" else 1.0
    print(json.dumps({"cpu": statistics.median(times) * scale, "value": value}))


def _krippendorff(grades):
    import krippendorff

    return float(krippendorff.alpha(grades, level_of_measurement="ordinal", value_domain=GRADES))


def _sklearn_kappa(grades):
    import numpy as np
    from sklearn.metrics import cohen_kappa_score

    both = ~np.isnan(grades[0]) & ~np.isnan(grades[1])
    return float(
        cohen_kappa_score(
            grades[0][both].astype(int),
            grades[1][both].astype(int),
            labels=GRADES,
            weights="quadratic",
        )
    )


def _naive_cluster_bootstrap(grades, replicates: int, seed: int = 0) -> None:
    import krippendorff
    import numpy as np

    queries = grades.shape[1] // UNITS_PER_QUERY
    columns = np.arange(grades.shape[1]).reshape(queries, UNITS_PER_QUERY)
    rng = np.random.default_rng(seed)
    for _ in range(replicates):
        picked = columns[rng.integers(0, queries, queries)].ravel()
        krippendorff.alpha(grades[:, picked], level_of_measurement="ordinal", value_domain=GRADES)


def measure(task: str, folder: Path, repeat: int) -> tuple[float, float, object]:
    """(median CPU seconds of the computation, the child's peak RSS in MB, the value)."""
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", task, str(folder), str(repeat)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"{task} failed (status {status})")
    result = json.loads(out)
    return result["cpu"], usage.ru_maxrss / 1024, result["value"]


def row(labellers: int, units: int, missing: float, repeat: int) -> str:
    with tempfile.TemporaryDirectory(prefix="agreement-bench-") as tmp:
        folder = Path(tmp)
        subprocess.run(
            [sys.executable, __file__, "--make", str(labellers), str(units), str(missing), tmp],
            check=True,
        )
        got = {task: measure(task, folder, repeat) for task in TASKS}
        ratings = _count_ratings(folder)
    (a1, m_a1, v_a1), (a2, m_a2, v_a2) = got["alpha-goldset"], got["alpha-krippendorff"]
    (k1, m_k1, v_k1), (k2, m_k2, v_k2) = got["kappa-goldset"], got["kappa-sklearn"]
    assert abs(v_a1 - v_a2) < 1e-9 and abs(v_k1 - v_k2) < 1e-9  # type: ignore[operator]
    report, m_report, _ = got["report-goldset"]
    naive, m_naive, _ = got["naive-krippendorff"]
    return (
        f"| {labellers} x {units:,} ({missing:.0%}) | {ratings:,} "
        f"| {a1 * 1000:.1f} ms, {m_a1:.0f} MB | {a2 * 1000:.1f} ms, {m_a2:.0f} MB | {a2 / a1:.2f} "
        f"| {k1 * 1000:.1f} ms, {m_k1:.0f} MB | {k2 * 1000:.1f} ms, {m_k2:.0f} MB | {k2 / k1:.2f} "
        f"| {report:.2f} s, {m_report:.0f} MB | {naive:.1f} s, {m_naive:.0f} MB |"
    )


def _count_ratings(folder: Path) -> int:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, polars as pl; print(pl.scan_parquet(sys.argv[1]).select(pl.len())"
            ".collect().item())",
            str(folder / "ratings.parquet"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout)


def main() -> None:
    require("numpy", "krippendorff", "sklearn")
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], Path(sys.argv[3]), int(sys.argv[4]))
        return
    if sys.argv[1:2] == ["--make"]:
        labellers, units, missing, folder = sys.argv[2:6]
        make_data(Path(folder), int(labellers), int(units), float(missing))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", nargs="+", choices=list(SIZES), default=list(SIZES))
    args = parser.parse_args()
    print(
        "CPU time of the computation (median), peak RSS of the tool's whole process; "
        f"load average {os.getloadavg()[0]:.1f} at the start"
    )
    print(
        "| labellers x units (missing) | ratings | alpha: goldset | alpha: krippendorff | ratio "
        "| kappa: goldset | kappa: sklearn | ratio | report + bootstrap B=1000: goldset "
        "| naive bootstrap B=1000, alpha only: krippendorff |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in args.sizes:
        print(row(*SIZES[name], args.repeat), flush=True)


if __name__ == "__main__":
    main()
