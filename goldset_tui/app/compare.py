"""Comparing two runs query by query (`goldset compare`): the paired scores over the queries
`goldset eval` averages, and the paired tests on them."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import polars as pl

from goldset_tui.errors import InputError

if TYPE_CHECKING:
    from goldset_tui.eval.measures import Measure


def paired_scores(
    qrels: pl.DataFrame, runs: dict[str, pl.DataFrame], measure: str, level: int = 1
) -> pl.DataFrame:
    """query_id and one column per run, over the averaged queries (missing from a run: 0):
    those with a grade >= ``level``, as `goldset eval -l` averages."""
    from goldset_tui.eval.metrics import evaluate_wide, relevant_queries

    queries = pl.DataFrame({"query_id": relevant_queries(qrels.filter(pl.col("grade") >= level))})
    if queries.height == 0:
        raise InputError(
            None, f"the qrels have no query with a relevant document (grade >= {level})"
        )
    table = queries
    for name, run in runs.items():
        wide = evaluate_wide(qrels, run, [measure]).rename({measure: name})
        table = table.join(wide, on="query_id", how="left")
    return table.fill_null(0.0)


def compare_runs(
    qrels: pl.DataFrame,
    runs: dict[str, pl.DataFrame],
    measure: Measure,
    *,
    seed: int,
    samples: int,
    level: int = 1,
) -> dict[str, Any]:
    """The comparison of the two runs of ``runs`` on one measure, as `goldset compare`'s JSON
    object: mean difference, its interval, the randomisation test (McNemar for a 0/1 measure)."""
    from goldset_tui.eval.measure_kind import is_binary_measure, is_bounded_measure
    from goldset_tui.eval.stats import paired_comparison

    (a, b) = runs
    table = paired_scores(qrels, runs, str(measure), level)
    # McNemar only for a measure that is 0 or 1 by definition, not one that happened to be.
    binary = is_binary_measure(measure, qrels, table.get_column("query_id"))
    r = paired_comparison(
        table.get_column(a),
        table.get_column(b),
        seed=seed,
        samples=samples,
        binary=binary,
        bounded=is_bounded_measure(measure),
    )
    lo, hi = (None if math.isnan(x) else x for x in r.ci95)
    doc: dict[str, Any] = {
        "measure": str(measure),
        "a": a,
        "b": b,
        "queries": r.n,
        "mean_a": r.mean_a,
        "mean_b": r.mean_b,
        "mean_diff": r.mean_diff,
        "ci95": [lo, hi],
        "ci_method": r.ci_method,
        "p_value": r.p_value,
        "wins": r.wins,
        "losses": r.losses,
        "ties": r.ties,
        "seed": r.seed,
        "samples": r.samples,
    }
    if r.discordant is not None:
        doc |= {
            "discordant": {"only_a": r.discordant[0], "only_b": r.discordant[1]},
            "mcnemar_p": r.mcnemar_p,
        }
    return doc
