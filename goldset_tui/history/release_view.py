"""One recorded release as the review's report, for its top k view of a query.

A release's records keep, per system, every query's score and its top k with each document's
grade as it was scored (``records.py``); that is all the top k view reads. The runs are rebuilt
from those ranks (score = -rank, so trec_eval's order is the recorded one) and the grades in force
are the ones recorded, so the view shows the release as it was scored, not as today's grades
would score it. The report carries no table or intervals: it is for reading one query.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from goldset_tui.history.records import Record
from goldset_tui.history.timeline import release_order
from goldset_tui.report.model import Report


def latest_release(records: Sequence[Record], metric: str) -> str | None:
    """The release of ``metric`` recorded last (by when it was first recorded)."""
    mine = [r for r in records if r.measure == metric]
    order = release_order(mine)
    return order[-1] if order else None


def release_report(records: Sequence[Record], metric: str, release: str) -> Report:
    """Every system's record of ``metric`` in ``release``, as a :class:`Report`."""
    mine = [r for r in records if r.measure == metric and r.release == release]
    systems = list(dict.fromkeys(r.system for r in mine))
    scores = pl.DataFrame(
        [(r.system, q, v) for r in mine for q, v in r.scores.items()],
        schema={"system": pl.Utf8, "query_id": pl.Utf8, "value": pl.Float64},
        orient="row",
    )
    topk = pl.DataFrame(
        [
            (r.system, q, int(rank), str(doc), None if grade is None else int(grade))
            for r in mine
            for q, rows in r.topk.items()
            for rank, doc, grade in rows
        ],
        schema={
            "system": pl.Utf8,
            "query_id": pl.Utf8,
            "rank": pl.Int64,
            "doc_id": pl.Utf8,
            "grade": pl.Int64,
        },
        orient="row",
    )
    runs = {
        s: topk.filter(pl.col("system") == s)
        .select("query_id", "doc_id", score=-pl.col("rank").cast(pl.Float64), rank="rank")
        .sort("query_id", "rank")
        for s in systems
    }
    qrels = (
        topk.filter(pl.col("grade").is_not_null())
        .select("query_id", "doc_id", "grade")
        .unique(subset=["query_id", "doc_id"], maintain_order=True)
    )
    strata = {q: r.stratum_of(q) for r in mine for q in r.scores}
    failing = pl.DataFrame(
        [(r.system, r.stratum_of(q), q) for r in mine for q, v in r.scores.items() if v == 0],
        schema={"system": pl.Utf8, "stratum": pl.Utf8, "query_id": pl.Utf8},
        orient="row",
    )
    return Report(
        metric=metric,
        k=max((r.k for r in mine), default=10),
        n=len({q for r in mine for q in r.scores}),
        binary=all(r.binary for r in mine),
        systems=systems,
        fused=None,
        table=pl.DataFrame(),
        overall=pl.DataFrame(),
        closure=[],
        strata=sorted(set(strata.values())),
        scores=scores,
        failing=failing,
        topk=topk,
        qrels=qrels,
        runs=runs,
    )
