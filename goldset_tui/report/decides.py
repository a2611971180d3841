"""Whether deciding one pair's grade decides whether a system fails a query.

A query fails for a system when no document of its top k is relevant (graded at least the
measure's lowest relevant grade): the measure is 0 there. When the pair's document sits in a
system's top k beside no relevant document, the pair's grade alone settles that failure (other
unjudged or undecided documents of the same top k aside, which are counted so the sentence can say
so); when another document of that top k is relevant already, the system passes the query
whatever the pair is graded; when the document is in no top k, deciding it moves no failure
(it may still move a graded measure's ideal ranking, which this does not claim).

Pure over the report's ``topk`` frame (system, query_id, rank, doc_id, grade; null = no grade in
force, which is how the consensus shows an undecided disagreement).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from goldset_tui.scalar import as_int


@dataclass(frozen=True)
class Stake:
    system: str
    rank: int  # the pair's document's rank in the system's top k
    fails_unless: bool  # no other relevant document in that top k
    other_holes: int  # other documents of that top k with no grade in force


def stakes(topk: pl.DataFrame, query_id: str, doc_id: str, threshold: int) -> list[Stake]:
    """Per system holding ``doc_id`` in its top k for ``query_id``, what its grade decides (in
    the frame's system order)."""
    rows = topk.filter(pl.col("query_id") == query_id)
    out = []
    for system in rows.get_column("system").unique(maintain_order=True).to_list():
        mine = rows.filter(pl.col("system") == system)
        hit = mine.filter(pl.col("doc_id") == doc_id)
        if not hit.height:
            continue
        others = mine.filter(pl.col("doc_id") != doc_id)
        relevant = others.filter(pl.col("grade") >= threshold).height
        holes = others.get_column("grade").null_count()
        out.append(Stake(system, as_int(hit.get_column("rank").min()), relevant == 0, holes))
    return out


def stake_lines(
    stakes_: list[Stake], query_id: str, threshold: int, k: int, systems: int
) -> list[str]:
    """One sentence per system, the ones whose failure is at stake first; a single sentence when
    the document is in no top k of the ``systems`` known."""
    if not stakes_:
        return [f"no system's top {k} holds it ({systems} known): deciding it decides no failure"]
    lines = []
    for s in sorted(stakes_, key=lambda s: not s.fails_unless):
        if s.fails_unless:
            line = f"{s.system} fails {query_id} unless this is graded >= {threshold}"
            if s.other_holes:
                line += f" (or one of its {s.other_holes} other ungraded)"
        else:  # another document of its top k is relevant already
            line = f"{s.system} passes {query_id} either way"
        lines.append(line)
    return lines
