"""Coverage of Krippendorff's alpha's 95% interval with few queries, by seeded simulation.

Three labellers grade 3-14 documents a query on a 0-3 scale; each query has its own mix of true
grades and its own error rate (a labeller gives a uniformly random grade with probability drawn
per query from [0.01, 0.2]), so whether labellers agree depends on the query, as it does in real
judging. The true alpha is the ordinal alpha of 20,000 such queries. Through ``stratum_interval``
(the report's per-stratum path, and ``figure_intervals``' for the whole store), 300 studies of 8
and 300 of 15 queries must hold it 93% of the time. The percentile cluster bootstrap this replaced
held 0.88 at 8 queries and 0.92 at 15 (bench/interval_coverage.py --only alpha, docs/agreement.md).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from goldset_tui.agreement.intervals import (
    coincidence_cells,
    figures,
    per_query_table,
    stratum_interval,
)

GRADES = [0, 1, 2, 3]
STUDIES = 300
FLOOR = 0.93


def ratings(rng: np.random.Generator, queries: int) -> pl.DataFrame:
    """``query_id, unit, grade``: three labellers' grades of every document of ``queries``."""
    query_ids, units, grades = [], [], []
    for q in range(queries):
        error = rng.uniform(0.01, 0.2)
        docs = int(rng.integers(3, 15))
        true = rng.choice(4, docs, p=rng.dirichlet(np.ones(4)))
        wrong = rng.random((docs, 3)) < error
        given = np.where(wrong, rng.integers(0, 4, (docs, 3)), true[:, None])
        query_ids += [f"q{q}"] * (docs * 3)
        units += [f"q{q}-d{d}" for d in range(docs) for _ in range(3)]
        grades += given.ravel().tolist()
    return pl.DataFrame({"query_id": query_ids, "unit": units, "grade": grades})


@pytest.fixture(scope="module")
def true_alpha() -> float:
    many = ratings(np.random.default_rng(99), 20_000)
    sums = per_query_table(coincidence_cells(many, GRADES)).sum().row(0, named=True)
    value = figures(sums, GRADES, 0)["alpha.ordinal"]
    assert value is not None and 0.7 < value < 0.9
    return value


@pytest.mark.parametrize("queries", [8, 15])
def test_alpha_interval_covers_with_few_queries(queries: int, true_alpha: float) -> None:
    rng = np.random.default_rng(queries)
    covered = 0
    for study in range(STUDIES):
        interval, n = stratum_interval(
            ratings(rng, queries), GRADES, replicates=200, seed=study, level="ordinal"
        )
        assert n == queries and interval is not None
        covered += interval[0] <= true_alpha <= interval[1]
    assert covered / STUDIES >= FLOOR, covered / STUDIES
