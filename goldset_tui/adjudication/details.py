"""Everything a person needs to see about one disputed pair: the query, the candidate's title and
text, and every labeller's grade, note and time spent. Shared by the agreement and adjudication
screens; plain data so that it is testable without a terminal."""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl


@dataclass(frozen=True)
class LabellerGrade:
    labeller: str
    grade: int
    note: str | None
    seconds: float | None


@dataclass(frozen=True)
class PairDetails:
    query_id: str
    doc_id: str
    query: str | None
    title: str | None
    text: str | None
    grades: list[LabellerGrade] = field(default_factory=list)

    @property
    def spread(self) -> int:
        values = [g.grade for g in self.grades]
        return max(values) - min(values) if values else 0


def pair_details(
    ratings: pl.DataFrame, pool: pl.DataFrame | None, query_id: str, doc_id: str
) -> PairDetails:
    same = (pl.col("query_id") == query_id) & (pl.col("doc_id") == doc_id)
    rows = ratings.filter(same).sort("labeller")
    grades = [
        LabellerGrade(r["labeller"], r["grade"], r["note"], r["seconds"])
        for r in rows.iter_rows(named=True)
    ]
    query = title = text = None
    if pool is not None:
        hit = pool.filter(same)
        if hit.height:
            row = hit.row(0, named=True)
            query, title, text = row.get("query"), row.get("title"), row.get("text")
        else:
            # The pair is gone from the pool (it changed since judging): the query may still be there.
            same_query = pool.filter(pl.col("query_id") == query_id)
            if same_query.height:
                query = same_query.row(0, named=True).get("query")
    return PairDetails(query_id, doc_id, query, title, text, grades)


def seconds_text(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 60:
        return f"{seconds:.0f}s"
    return f"{seconds / 60:.1f}min"
