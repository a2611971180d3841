"""What the review's reading view needs about one query, beyond the report's top k frame.

The top k view reads a failure: every system's ranks, the highlighted document's grades (whose,
and whether the labellers disagree), where each relevant document sits in each system's full
ranking when no system put it in its top k, and which ranks were decided by a tied score. All
of it is computed per query from the runs and grades the report was built on, so the numbers are
the report's own (a notebook can call these too).

Ties: trec_eval orders a run by score, then by document id descending, so two documents with the
same score are ordered by their names. That decides the order wherever a tied pair straddles a
rank that matters; the view flags every rank in the top k whose score equals a neighbour's (the
k+1th included: a tie there decides what enters the top k).
"""

from __future__ import annotations

import polars as pl

NOT_RETRIEVED = "not retrieved"


def query_rankings(
    runs: dict[str, pl.DataFrame],
    query_id: str,
    *,
    fused: str | None = None,
    fusion_depth: int | None = None,
) -> dict[str, pl.DataFrame]:
    """``system -> doc_id, score, rank`` for one query, ranked as trec_eval ranks (score
    descending, then doc_id descending); the fused system recomputed from the runs given, as the
    report fused them (RRF over each run's top ``fusion_depth``)."""
    out: dict[str, pl.DataFrame] = {}
    for name, run in runs.items():
        part = run.filter(pl.col("query_id") == query_id)
        out[name] = _ranked(part)
    if fused is not None and len(runs) >= 2:
        from goldset_tui.eval.fusion import rrf

        parts = [r.filter(pl.col("query_id") == query_id) for r in runs.values()]
        if any(p.height for p in parts):
            out[fused] = _ranked(rrf(parts, depth=fusion_depth))
        else:
            out[fused] = _ranked(parts[0])
    return out


def _ranked(part: pl.DataFrame) -> pl.DataFrame:
    if part.height == 0:
        return pl.DataFrame(schema={"doc_id": pl.Utf8, "score": pl.Float64, "rank": pl.Int64})
    frame = part.select(pl.col("doc_id").cast(pl.Utf8), pl.col("score").cast(pl.Float64))
    if "rank" in part.columns:  # the rank the report's top k used, so the two agree
        return frame.with_columns(rank=part.get_column("rank").cast(pl.Int64)).sort("rank")
    frame = frame.sort(["score", "doc_id"], descending=[True, True])
    return frame.with_columns(rank=pl.int_range(1, frame.height + 1, dtype=pl.Int64))


def tied_ranks(rankings: dict[str, pl.DataFrame], k: int) -> set[tuple[str, int]]:
    """``(system, rank)`` of every top-k rank whose score equals the rank above or below it
    (rank k+1 counts: a tie across the cut decides what is in the top k)."""
    tied: set[tuple[str, int]] = set()
    for name, frame in rankings.items():
        scores = frame.filter(pl.col("rank") <= k + 1).get_column("score").to_list()
        for i in range(min(k, len(scores))):
            above = i > 0 and scores[i - 1] == scores[i]
            below = i + 1 < len(scores) and scores[i + 1] == scores[i]
            if above or below:
                tied.add((name, i + 1))
    return tied


def relevant_outside(
    qrels: pl.DataFrame | None,
    rankings: dict[str, pl.DataFrame],
    query_id: str,
    k: int,
) -> list[tuple[str, int, dict[str, int | None]]]:
    """The query's relevant documents (grade >= 1) no system has in its top k: ``(doc_id, grade,
    {system: rank or None})``, None where the system did not retrieve it at all; best grade
    first, then by id."""
    if qrels is None:
        return []
    relevant = (
        qrels.filter((pl.col("query_id") == query_id) & (pl.col("grade") >= 1))
        .group_by("doc_id")
        .agg(pl.col("grade").max())
        .sort(["grade", "doc_id"], descending=[True, False])
    )
    ranks = {
        name: dict(frame.select("doc_id", "rank").iter_rows()) for name, frame in rankings.items()
    }
    out = []
    for doc, grade in relevant.iter_rows():
        where = {name: ranks[name].get(doc) for name in rankings}
        if any(r is not None and r <= k for r in where.values()):
            continue
        out.append((doc, int(grade), where))
    return out


def rank_words(rank: int | None) -> str:
    return NOT_RETRIEVED if rank is None else f"#{rank}"


def labelled_grades(
    labelled: pl.DataFrame | None, query_id: str
) -> dict[str, list[tuple[str, int]]]:
    """``doc_id -> [(labeller, grade), ...]`` for one query, labellers in name order."""
    if labelled is None:
        return {}
    rows = labelled.filter(pl.col("query_id") == query_id).sort("labeller")
    out: dict[str, list[tuple[str, int]]] = {}
    for doc, who, grade in rows.select("doc_id", "labeller", "grade").iter_rows():
        out.setdefault(doc, []).append((who, grade))
    return out


def disagree(grades: list[tuple[str, int]]) -> bool:
    """Two labellers gave the document different grades."""
    return len({g for _, g in grades if g is not None}) > 1
