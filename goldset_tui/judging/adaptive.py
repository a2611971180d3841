"""``goldset judge --order adaptive``: the next candidate of a query chosen by the MaxMean bandit
from the labeller's grades so far (:mod:`goldset_tui.judging.bandit`, Losada, Parapar & Barreiro).

Contract: :func:`adaptive_next` returns the position, in the query's *displayed* (blind) order, of
the candidate to judge next, or None when every candidate is graded. The arms are the systems of
the pool's ``systems``/``ranks`` columns, in sorted name order (the bandit's tie-break: the pool's
row order must not decide it); a grade of at least ``relevant_from`` is a success: the grade just
above the scale's lowest (1 on 0-3, 2 on 1-5; :func:`relevant_from`). Candidates no
system returned (added by hand) come after the bandit has nothing left, in displayed order.

Blindness: the labeller still sees neither systems nor ranks (the screen shows them only with
``--reveal``), and positions keep their blind numbering; only which candidate comes next depends
on the grades, the same way for anyone who gave the same grades.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from goldset_tui.judging.bandit import maxmean_next

# trec_eval's default relevance threshold (-l 1), the one `goldset simulate` replays with.
RELEVANT_FROM = 1


def relevant_from(lowest: int) -> int:
    """The success threshold on a scale starting at ``lowest``: its lowest grade means "not
    relevant" (0 on 0-3, but 1 on 1-5, where ``>= 1`` would call every grade a success)."""
    return lowest + 1


ORDERS = ("blind", "adaptive")


def has_systems(frame: pl.DataFrame) -> bool:
    """Whether a pool says which systems returned its rows, at what rank (what the bandit needs).

    A pool file without those columns reads with them empty (null or []) on every row."""
    if "systems" not in frame.columns or "ranks" not in frame.columns:
        return False
    return bool(frame.select(pl.col("ranks").list.len().fill_null(0).max()).item() or 0)


def ranked_lists(rows: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    """system -> its doc ids best first, from the rows' ``systems`` and ``ranks`` lists."""
    by_system: dict[str, list[tuple[int, str]]] = {}
    for row in rows:
        for system, rank in zip(row.get("systems") or (), row.get("ranks") or (), strict=False):
            by_system.setdefault(str(system), []).append((int(rank), str(row["doc_id"])))
    return {s: [d for _, d in sorted(by_system[s])] for s in sorted(by_system)}


def adaptive_next(
    rows: Sequence[Mapping[str, Any]], grades: Mapping[str, int], threshold: int = RELEVANT_FROM
) -> int | None:
    """Position in ``rows`` (displayed order) of the next candidate to judge, or None; a grade
    of at least ``threshold`` counts as relevant."""
    judged = {doc: grade >= threshold for doc, grade in grades.items()}
    doc = maxmean_next(ranked_lists(rows), judged)
    if doc is None:
        return next((i for i, r in enumerate(rows) if r["doc_id"] not in grades), None)
    return next(i for i, r in enumerate(rows) if r["doc_id"] == doc)
