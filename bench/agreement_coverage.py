"""Coverage of the kappas' and agreements' 95% intervals with few queries (interval_coverage.py
--only kappa), by seeded simulation through the library.

Three labellers (a, b, c) grade 3-14 documents a query on a 0-3 scale; each query has its own mix
of true grades and its own error rate (a labeller gives a uniformly random grade with probability
drawn per query from a range), so agreement depends on the query, as in real judging. The truth is
each figure on 20,000 such queries. For the pair (a, b): Cohen's kappa unweighted, linear and
quadratic, and raw agreement; over all three: agreement at the cut-off grade >= 2. Methods: the
percentile cluster bootstrap (before; B replicates), the jackknife t on the figure itself, and the
report's: the jackknife t on log(1 - kappa) (``jackknife.jackknife_interval``, as for alpha) and
for agreements Wilson's form on the jackknife's effective n with t(Q - 1)
(``jackknife.rate_interval``), through ``intervals.jackknife_intervals``, with the bootstrap's
interval where the jackknife cannot make one, as the report does. Each cell: coverage (mean width).
"""

from __future__ import annotations

import polars as pl
from _needs import require  # bench/ is sys.path[0] when a script runs

from goldset_tui.agreement.bootstrap import percentile_interval, resample_sums
from goldset_tui.agreement.intervals import (
    coincidence_cells,
    confusion_cells,
    figures,
    jackknife_intervals,
    per_query_table,
)
from goldset_tui.agreement.jackknife import leave_one_out

require("numpy", "scipy")  # before the imports below: a missing extra is one line

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

GRADES = [0, 1, 2, 3]
PAIRS = [("a", "b"), ("a", "c"), ("b", "c")]
MODELS = {
    "error 1-20% a query": (0.01, 0.2),
    "error 2-40% a query": (0.02, 0.4),
    "error 0-6% a query": (0.0, 0.06),
}
QUERIES = (8, 15, 30)
FIGURES = (
    "pair.0.kappa",
    "pair.0.kappa_linear",
    "pair.0.kappa_quadratic",
    "pair.0.agreement",
    "binary.2.agreement",
)
METHODS = ("percentile (before)", "jackknife t", "report")


def ratings(rng: np.random.Generator, queries: int, low: float, high: float) -> pl.DataFrame:
    """``labeller, query_id, unit, grade`` of three labellers on ``queries`` queries."""
    labellers, query_ids, units, grades = [], [], [], []
    for q in range(queries):
        error = rng.uniform(low, high)
        docs = int(rng.integers(3, 15))
        true = rng.choice(4, docs, p=rng.dirichlet(np.ones(4)))
        wrong = rng.random((docs, 3)) < error
        given = np.where(wrong, rng.integers(0, 4, (docs, 3)), true[:, None])
        labellers += ["a", "b", "c"] * docs
        query_ids += [f"q{q:05d}"] * (docs * 3)
        units += [f"q{q}-d{d}" for d in range(docs) for _ in range(3)]
        grades += given.ravel().tolist()
    return pl.DataFrame(
        {"labeller": labellers, "query_id": query_ids, "unit": units, "grade": grades}
    )


def table_of(frame: pl.DataFrame) -> pl.DataFrame:
    cells = pl.concat([coincidence_cells(frame, GRADES), confusion_cells(frame, PAIRS, GRADES)])
    return per_query_table(cells)


def intervals(
    table: pl.DataFrame, replicates: int, seed: int
) -> dict[str, dict[str, tuple[float, float] | None]]:
    """{figure: {method: interval}}."""
    whole, left_out = leave_one_out(
        table.columns, table.rows(), lambda s: figures(s, GRADES, len(PAIRS))
    )
    sums = resample_sums(table, replicates=replicates, seed=seed).drop("rep")
    boot = [figures(row, GRADES, len(PAIRS)) for row in sums.iter_rows(named=True)]
    report = jackknife_intervals(table, GRADES, len(PAIRS), 0.95)
    q = table.height
    t = float(stats.t.ppf(0.975, q - 1))
    out: dict[str, dict[str, tuple[float, float] | None]] = {}
    for name in FIGURES:
        theta = whole[name]
        jack = [f[name] for f in left_out]
        before = percentile_interval([b[name] for b in boot])
        row: dict[str, tuple[float, float] | None] = {"percentile (before)": before}
        # As figure_intervals: the bootstrap's interval where the jackknife cannot make one.
        row["report"] = report.get(name, before)
        if theta is None or any(j is None for j in jack):
            out[name] = row | {"jackknife t": None}
            continue
        values = np.array(jack, dtype=float)
        se = float(np.sqrt((q - 1) / q * ((values - values.mean()) ** 2).sum()))
        row["jackknife t"] = (theta - t * se, theta + t * se)
        out[name] = row
    return out


def kappa_table(reps: int, rng: np.random.Generator, replicates: int = 300) -> None:
    print(
        f"\nKappas and agreements, three labellers, {reps} studies per row, "
        f"bootstrap B = {replicates}; coverage (mean width):\n"
    )
    print("| labellers' errors | figure | true value | queries | " + " | ".join(METHODS) + " |")
    print("|---|---|---:|---:|" + "---|" * len(METHODS))
    for label, (low, high) in MODELS.items():
        truth = figures(
            table_of(ratings(rng, 20_000, low, high)).sum().row(0, named=True),
            GRADES,
            len(PAIRS),
        )
        for queries in QUERIES:
            covered = {f: dict.fromkeys(METHODS, 0) for f in FIGURES}
            width = {f: dict.fromkeys(METHODS, 0.0) for f in FIGURES}
            for study in range(reps):
                table = table_of(ratings(rng, queries, low, high))
                for name, row in intervals(table, replicates, study).items():
                    for method, interval in row.items():
                        if interval is not None:
                            true = truth[name]
                            assert true is not None
                            covered[name][method] += interval[0] <= true <= interval[1]
                            width[name][method] += interval[1] - interval[0]
            for name in FIGURES:
                print(
                    f"| {label} | {name.split('.', 1)[1]} | {truth[name]:.3f} | {queries} | "
                    + " | ".join(
                        f"{covered[name][m] / reps:.3f} ({width[name][m] / reps:.3f})"
                        for m in METHODS
                    )
                    + " |",
                    flush=True,
                )


def _lenient(rng: np.random.Generator, queries: int) -> pl.DataFrame:
    """``query_id, a, b``: a machine (a) one grade up with a per-query probability from [0, 0.4]
    and one down with 0.05, against a person (b), 3-14 documents a query on 0-3."""
    rows = []
    for q in range(queries):
        up_rate = rng.uniform(0.0, 0.4)
        docs = int(rng.integers(3, 15))
        person = rng.integers(0, 4, docs)
        machine = np.clip(person + (rng.random(docs) < up_rate) - (rng.random(docs) < 0.05), 0, 3)
        rows += [(f"q{q:05d}", int(m), int(p)) for m, p in zip(machine, person, strict=True)]
    return pl.DataFrame(rows, schema=["query_id", "a", "b"], orient="row")


def leniency_table(reps: int, rng: np.random.Generator, replicates: int = 300) -> None:
    """A machine's mean grade minus a person's: the percentile cluster bootstrap (before) against
    the jackknife t over queries (the report's, ``machine.mean_difference``)."""
    from goldset_tui.machine.agreement import mean_difference

    many = _lenient(rng, 20_000)
    truth = float((many["a"] - many["b"]).sum()) / many.height
    print(f"\nLeniency (machine minus person), true {truth:.3f}, {reps} studies per row:\n")
    print("| queries | percentile (before) | jackknife t (report) |")
    print("|---:|---|---|")
    for queries in QUERIES:
        covered = {"boot": 0, "jack": 0}
        width = {"boot": 0.0, "jack": 0.0}
        for study in range(reps):
            both = _lenient(rng, queries)
            per = both.group_by("query_id").agg(
                diff=(pl.col("a") - pl.col("b")).sum().cast(pl.Float64),
                n=pl.len().cast(pl.Float64),
            )
            sums = resample_sums(
                per.sort("query_id").select("diff", "n"), replicates=replicates, seed=study
            )
            boot = percentile_interval(
                [d / n if n else None for d, n in zip(sums["diff"], sums["n"], strict=True)]
            )
            _, jack, _ = mean_difference(both, replicates=replicates, seed=study)
            for name, interval in (("boot", boot), ("jack", jack)):
                assert interval is not None
                covered[name] += interval[0] <= truth <= interval[1]
                width[name] += interval[1] - interval[0]
        print(
            f"| {queries} | "
            + " | ".join(f"{covered[m] / reps:.3f} ({width[m] / reps:.3f})" for m in covered)
            + " |",
            flush=True,
        )
