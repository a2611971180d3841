"""Whether a measure is binary (0 or 1 on every query) and whether it is bounded in [0, 1], decided
from the measure's definition and the qrels, never from the values a run happened to score.

Guessing from values is wrong twice over. nDCG@10 = 1.0 on each of seven queries is not "7/7
hits": a graded measure that happens to sit at 1 everywhere is still graded, and the next query
can score 0.6. And one system's releases would switch interval method (and cell format) as its
values moved, so two releases could not be read side by side.

Each measure's registry entry (``goldset_tui.measures``) holds its kind and bounds; the
definitions behind them:

- ``Success@k`` is a hit or a miss: binary.
- ``P@1``, ``RR@1`` and ``Judged@1`` look at one rank: binary.
- ``R@k`` (and ``SetR``, recall of the whole run) counts the relevant documents found over those
  known. With one relevant document per query it is a hit or a miss (recall@10 read as "did
  the top 10 hold the answer?"); with two, 0.5 is possible. So it is binary exactly
  when every evaluated query has at most one relevant document at the measure's relevance level
  (a query with none scores 0). ``Rprec`` is P@R, so with R = 1 it is P@1: the same rule.
- ``RR``, ``AP``, ``nDCG``, ``P@k`` for k > 1 and the rest are graded.

Bounded: every measure's per-query value lies in [0, 1] except the counts (NumRet, NumRel...)
and alpha-nDCG, whose ideal is ndeval's greedy approximation and can be beaten (so a value can
exceed 1). The interval a mean carries follows: Wilson with continuity correction for binary,
``score-t`` for bounded, Student t otherwise (``intervals.method_for``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from goldset_tui.eval.measures import Measure, parse_measure

if TYPE_CHECKING:
    import polars as pl


def as_measure(metric: str | Measure) -> Measure:
    return metric if isinstance(metric, Measure) else parse_measure(metric)


def binary_by_name(metric: str | Measure) -> bool | None:
    """True or False when the measure's definition settles it; None when it depends on how many
    relevant documents each query has (R@k, SetR, Rprec): then see :func:`is_binary_measure`."""
    m = as_measure(metric)
    kind = m.entry.kind  # each measure's kind is in its registry entry
    if kind == "binary":
        return True
    if kind == "binary_at_cutoff_1" and m.cutoff == 1:
        return True
    if kind == "binary_at_one_relevant":
        return None
    return False


def is_bounded_measure(metric: str | Measure) -> bool:
    """Every per-query value lies in [0, 1] by definition."""
    return as_measure(metric).entry.bounded


def at_most_one_relevant(qrels: pl.DataFrame, queries: pl.Series | None, rel: int) -> bool:
    """Every query of ``queries`` (default: all in the qrels) has at most one document graded
    ``rel`` or more. A document listed twice counts once, at its highest grade (as the engine
    reads qrels), so a repeated line never makes a query look like it has one relevant document
    when it has two."""
    import polars as pl

    relevant = qrels.filter(pl.col("grade") >= rel).select("query_id", "doc_id").unique()
    if queries is not None:
        relevant = relevant.filter(pl.col("query_id").is_in(queries.cast(pl.Utf8).implode()))
    if relevant.height == 0:
        return True
    return int(relevant.group_by("query_id").len().get_column("len").max()) <= 1  # type: ignore[arg-type]


def is_binary_measure(
    metric: str | Measure, qrels: pl.DataFrame | None = None, queries: pl.Series | None = None
) -> bool:
    """Whether ``metric`` is 0 or 1 on every query of ``queries`` under ``qrels``, by definition.

    A recall-like measure (R@k, SetR, Rprec) needs the qrels; without them this raises
    ValueError rather than guessing."""
    m = as_measure(metric)
    known = binary_by_name(m)
    if known is not None:
        return known
    if qrels is None:
        raise ValueError(
            f"{m}: binary only when each query has one relevant document; pass the qrels"
        )
    return at_most_one_relevant(qrels, queries, max(1, m.rel))
