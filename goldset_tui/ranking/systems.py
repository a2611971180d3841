"""Do two sets of labels rank the systems the same way? (issue 15, ``system_ranking``)

For each pair of label sets (``a`` the reference, usually the humans; ``b`` the one under test,
usually a machine judge) every run is scored with one measure under each set, per query, then
averaged as ``goldset eval`` does (over the queries with a relevant document in that set, a query
the run missed counting 0). Only the queries *both* sets judged take part: people usually judge a
part of what a machine labelled, and means over different queries would mix which queries were
judged into how they were judged. The two orderings of the systems by their means are compared with
Kendall's tau-b and tau_AP (``ranking.py``; tau_AP takes ``a`` as the reference), and every pair of
systems whose order differs is listed as a flip, with the difference under each set and whether
the difference under ``a`` is significant (two-sided paired randomization test of
``eval/stats.py`` over ``a``'s queries, p < ``ALPHA``).

Contract: :func:`system_ranking` returns the JSON-ready dict documented in docs/agreement.md; with
fewer than three systems the correlations are ``None`` and ``note`` says why (a correlation of
two items is +1 or -1 and says nothing). ``strata`` (``query_id, stratum``) repeats the whole
comparison on each stratum's queries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from goldset_tui.eval.metrics import evaluate_wide, relevant_queries
from goldset_tui.eval.stats import randomization_p
from goldset_tui.ranking.correlation import kendall_tau, tau_ap
from goldset_tui.scalar import as_float

ALPHA = 0.05
SAMPLES = 10_000
FEWER = "a ranking correlation needs three or more systems"


def per_query(qrels: pl.DataFrame, runs: Mapping[str, pl.DataFrame], measure: str) -> pl.DataFrame:
    """``query_id`` and one column per system, over the queries with a relevant document."""
    queries = pl.DataFrame({"query_id": relevant_queries(qrels)})
    out = queries
    for name, run in runs.items():
        wide = evaluate_wide(qrels, run, [measure]).select(
            "query_id", pl.col(measure).cast(pl.Float64).alias(name)
        )
        out = out.join(wide, on="query_id", how="left")
    return out.fill_null(0.0).sort("query_id")


def compare(
    table_a: pl.DataFrame,
    table_b: pl.DataFrame,
    systems: Sequence[str],
    *,
    seed: int,
    samples: int,
) -> dict[str, Any]:
    """Correlations and flips between the per-query tables of two label sets."""
    if table_a.height == 0 or table_b.height == 0:
        return {
            "kendall_tau": None,
            "tau_ap": None,
            "n_systems": len(systems),
            "flips": [],
            "note": "no query with a relevant document under one of the label sets",
        }
    mean_a = {s: as_float(table_a[s].mean()) for s in systems}
    mean_b = {s: as_float(table_b[s].mean()) for s in systems}
    out: dict[str, Any] = {
        "n_systems": len(systems),
        "queries_a": table_a.height,
        "queries_b": table_b.height,
        "means_a": mean_a,
        "means_b": mean_b,
    }
    if len(systems) < 3:
        out |= {"kendall_tau": None, "tau_ap": None, "note": FEWER}
    else:
        out |= {"kendall_tau": kendall_tau(mean_a, mean_b), "tau_ap": tau_ap(mean_a, mean_b)}
    flips = []
    for i, x in enumerate(systems):
        for y in systems[i + 1 :]:
            diff_a, diff_b = mean_a[x] - mean_a[y], mean_b[x] - mean_b[y]
            if (diff_a > 0) - (diff_a < 0) == (diff_b > 0) - (diff_b < 0):
                continue
            p = randomization_p(table_a[x] - table_a[y], samples=samples, seed=seed)
            flips.append(
                {
                    "x": x,
                    "y": y,
                    "diff_a": diff_a,
                    "diff_b": diff_b,
                    "p_a": p,
                    "significant_a": p < ALPHA,
                }
            )
    out["flips"] = flips
    return out


def system_ranking(
    label_sets: Mapping[str, pl.DataFrame],
    runs: Mapping[str, pl.DataFrame],
    measure: str,
    pairs: Sequence[tuple[str, str]],
    *,
    strata: pl.DataFrame | None = None,
    seed: int = 0,
    samples: int = SAMPLES,
) -> dict[str, Any]:
    systems = list(runs)
    tables: dict[tuple[str, str, str], pl.DataFrame] = {}  # (a, b, which): on common queries
    for a, b in pairs:
        both = (
            label_sets[a]
            .select("query_id")
            .unique()
            .join(label_sets[b].select("query_id").unique(), on="query_id")
        )
        for name in (a, b):
            judged = label_sets[name].join(both, on="query_id", how="semi")
            tables[a, b, name] = per_query(judged, runs, measure)

    def pair_rows(keep: pl.Series | None) -> list[dict[str, Any]]:
        rows = []
        for a, b in pairs:
            ta, tb = tables[a, b, a], tables[a, b, b]
            if keep is not None:
                ta = ta.filter(pl.col("query_id").is_in(keep.implode()))
                tb = tb.filter(pl.col("query_id").is_in(keep.implode()))
            rows.append({"a": a, "b": b} | compare(ta, tb, systems, seed=seed, samples=samples))
        return rows

    out: dict[str, Any] = {
        "measure": measure,
        "reference": "a (tau_ap takes the ordering under a as the truth)",
        "significance": f"paired randomization test on a's per-query differences, p < {ALPHA}",
        "pairs": pair_rows(None),
    }
    if strata is not None:
        by_query = strata.select(pl.col("query_id").cast(pl.Utf8), pl.col("stratum").cast(pl.Utf8))
        by_query = by_query.unique("query_id", keep="first", maintain_order=True)
        out["strata"] = [
            {"stratum": s, "pairs": pair_rows(by_query.filter(pl.col("stratum") == s)["query_id"])}
            for s in sorted(by_query["stratum"].unique().to_list())
        ]
    return out
