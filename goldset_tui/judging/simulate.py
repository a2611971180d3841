"""Replay existing judgments as if the pool had been judged in a given order (issue 15, "judging
less"): how many relevant documents each budget finds, and how well the systems are already
ranked.

Contract: :func:`judging_order` returns the (query_id, doc_id) pairs of the depth-``depth`` pool
of ``runs`` in the order a labeller would judge them, at most ``budget`` of them:

- ``depth``: rank 1 of every run, then rank 2, ...; within a rank, queries in sorted order, runs
  in the order given; a pair already taken is skipped.
- ``mtf``: move-to-front (Cormack, Palmer & Clarke, SIGIR 1998), queries taken in turn, one
  judgment each per turn. Per query the runs form a queue; the labeller judges the next unjudged
  document of the run at the front; a relevant document keeps that run at the front, a
  non-relevant one sends it to the back; a run whose top ``depth`` is exhausted leaves the queue.
- ``mm``: MaxMean, the multi-armed-bandit adjudication of Losada, Parapar & Barreiro (SAC 2016,
  IP&M 2017), stationary variant, uniform Beta(1, 1) prior, ties to the run given first: see
  :mod:`goldset_tui.judging.bandit` for exactly what is implemented. Queries take turns as in
  ``mtf``, one judgment each per turn.

Relevance is read from ``qrels`` (grade >= 1); a pooled pair the qrels lack counts as judged not
relevant, the usual assumption. A query the qrels do not judge at all is left out of the pool
(as trec_eval leaves it out of every mean): replaying it would spend budget on documents nobody
graded and call them not relevant; ``queries_without_judgments`` counts them.
:func:`simulate` adds, at every ``step``-th judgment and at the end, the relevant found, their
share of all relevant pooled pairs, and Kendall's tau-b between the systems' order by
``measure`` under the judgments so far and under all of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from goldset_tui.eval.metrics import mean_scores
from goldset_tui.judging.bandit import NAME as MAXMEAN
from goldset_tui.judging.bandit import maxmean_sequence
from goldset_tui.ranking.correlation import kendall_tau

ORDERS = ("depth", "mtf", MAXMEAN)
Pair = tuple[str, str]


def rankings(runs: Mapping[str, pl.DataFrame], depth: int) -> dict[str, dict[str, list[str]]]:
    """run -> query -> doc ids of its top ``depth``, best first."""
    out: dict[str, dict[str, list[str]]] = {}
    for name, run in runs.items():
        top = run.sort("query_id", "rank").filter(pl.col("rank") <= depth)
        grouped = top.group_by("query_id", maintain_order=True).agg(pl.col("doc_id"))
        out[name] = {q: list(docs) for q, docs in grouped.iter_rows()}
    return out


def judging_order(
    runs: Mapping[str, pl.DataFrame], relevant: set[Pair], *, depth: int, order: str, budget: int
) -> list[Pair]:
    ranked = rankings(runs, depth)
    names = list(runs)
    queries = sorted({q for by_query in ranked.values() for q in by_query})
    taken: list[Pair] = []
    seen: set[Pair] = set()

    def take(pair: Pair) -> None:
        seen.add(pair)
        taken.append(pair)

    if order == "depth":
        for rank in range(depth):
            for q in queries:
                for name in names:
                    docs = ranked[name].get(q, [])
                    if rank < len(docs) and (q, docs[rank]) not in seen:
                        take((q, docs[rank]))
        return taken[:budget]
    if order == MAXMEAN:
        by_query: dict[str, set[str]] = {}
        for q, d in relevant:
            by_query.setdefault(q, set()).add(d)
        per_query = {
            q: maxmean_sequence(
                {n: ranked[n][q] for n in names if ranked[n].get(q)}, by_query.get(q, set())
            )
            for q in queries
        }
        return _interleave(per_query, budget)
    queues = {q: [n for n in names if ranked[n].get(q)] for q in queries}
    cursor = {(q, n): 0 for q in queries for n in names}
    while len(taken) < budget and any(queues.values()):
        for q in queries:
            queue = queues[q]
            while queue:  # the front run's next unjudged document, dropping exhausted runs
                name = queue[0]
                docs = ranked[name][q]
                while cursor[q, name] < len(docs) and (q, docs[cursor[q, name]]) in seen:
                    cursor[q, name] += 1
                if cursor[q, name] < len(docs):
                    break
                queue.pop(0)
            if not queue or len(taken) >= budget:
                continue
            pair = (q, ranked[name][q][cursor[q, name]])
            take(pair)
            if pair not in relevant:
                queue.append(queue.pop(0))
    return taken


def _interleave(per_query: Mapping[str, list[str]], budget: int) -> list[Pair]:
    """Queries take turns, one judgment each per turn, until ``budget`` or all are done."""
    out: list[Pair] = []
    depth = max((len(v) for v in per_query.values()), default=0)
    for i in range(depth):
        for q, docs in per_query.items():
            if i < len(docs):
                out.append((q, docs[i]))
                if len(out) >= budget:
                    return out
    return out


def simulate(
    qrels: pl.DataFrame,
    runs: Mapping[str, pl.DataFrame],
    *,
    depth: int,
    order: str,
    budget: int,
    measure: str = "nDCG@10",
    step: int = 1,
) -> dict[str, Any]:
    grades = {(q, d): g for q, d, g in qrels.select("query_id", "doc_id", "grade").iter_rows()}
    judged_queries = {q for q, _ in grades}
    in_runs = {q for run in runs.values() for q in run.get_column("query_id").unique().to_list()}
    runs = {n: run.filter(pl.col("query_id").is_in(judged_queries)) for n, run in runs.items()}
    relevant = {pair for pair, g in grades.items() if g >= 1}
    sequence = judging_order(runs, relevant, depth=depth, order=order, budget=budget)
    pool = judging_order(runs, relevant, depth=depth, order="depth", budget=10**12)
    pooled_relevant = sum(1 for p in pool if p in relevant)

    def means(pairs: Sequence[Pair]) -> dict[str, float]:
        judged = pl.DataFrame(
            [(q, d, grades.get((q, d), 0)) for q, d in pairs],
            schema={"query_id": pl.Utf8, "doc_id": pl.Utf8, "grade": pl.Int64},
            orient="row",
        )
        return {n: mean_scores(judged, run, [measure])[measure] for n, run in runs.items()}

    full = means(pool)
    steps = []
    found = 0
    for i, pair in enumerate(sequence, 1):
        found += pair in relevant
        if i % step == 0 or i == len(sequence):
            steps.append(
                {
                    "judged": i,
                    "relevant_found": found,
                    "share": found / pooled_relevant if pooled_relevant else None,
                    "kendall_tau": kendall_tau(means(sequence[:i]), full)
                    if len(runs) >= 3
                    else None,
                }
            )
    return {
        "order": order,
        "depth": depth,
        "budget": budget,
        "measure": measure,
        "queries": len(in_runs & judged_queries),
        "queries_without_judgments": len(in_runs - judged_queries),
        "pool": len(pool),
        "relevant_in_pool": pooled_relevant,
        "steps": steps,
    }
