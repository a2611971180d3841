"""The measures added for trec_eval and ir_measures parity beyond the classic ones, each entry
with its Polars expression and its kernel beside it (the columns they use: ``trec.py``):

- ``IPrec@x``: trec_eval's iprec_at_recall: the highest precision at any rank at or below the
  point where round(x * R) relevant documents have been seen (lround, half away from zero, as
  trec_eval 10; v9 added 0.9 and truncated). 0 when fewer relevant documents are retrieved.
- ``IPrecAvg``: trec_eval's 11pt_avg, the mean of IPrec at 0.0, 0.1, ..., 1.0.
- ``SetP``, ``SetR``, ``SetF(beta=b)``: over everything retrieved (trec_eval's set_P,
  set_recall, set_F: (b + 1) P R / (b P + R), 0 when nothing relevant is retrieved).
- ``ERR@k``: Expected Reciprocal Rank (Chapelle, Metzler, Zhang & Grinspan 2009) exactly as
  gdeval.pl (TREC Web track; ir_measures' ERR provider) computes it: the probability a document
  satisfies is (2^g - 1) / 2^4 with grades capped at gdeval's maximum of 4, negative grades 0.
- ``RBP(p=...)``: rank-biased precision (Moffat & Zobel 2008), (1 - p) sum of p^(i-1) over the
  relevant ranks (binary gain at ``rel``, as ir_measures; its default p 0.8). ``RBPResid``: its
  residual, what the unjudged ranks and the tail beyond the list could still add (cwl-eval's
  residual; cwl-eval cuts the tail at depth 1000, a difference of p^1000). A query missing from
  the run has residual 1. trec_eval's ``rbp`` differs (graded gains scaled to [0, 1], p = 0.9)
  and so does its ``rbp_resid`` (0 when nothing retrieved is unjudged): they are not aliases.
"""

from __future__ import annotations

import math
from itertools import count
from operator import truediv
from typing import TYPE_CHECKING

from goldset_tui.measures.entry import Entry, Measure, TrecName
from goldset_tui.measures.exprs import pl, safe_div
from goldset_tui.measures.query import ELEVEN_POINTS, ERR_MAX_GRADE, Query, div

if TYPE_CHECKING:
    Exprs = tuple[list[pl.Expr], pl.Expr]
REL = frozenset({"rel"})


def _iprec_agg(m: Measure, level: float, key: str) -> pl.Expr:
    crel, rel = pl.col(f"crel{m.rel}"), pl.col(f"rel{m.rel}")
    # lround(level * R): C's round half away from zero (R >= 0, so floor(x + 0.5)).
    needed = (pl.lit(level) * pl.col(f"nrel{m.rel}").first() + 0.5).floor()
    precision = crel / pl.col("rank")
    return precision.filter(rel & (crel >= needed)).max().alias(key)


def _iprec_at(m: Measure, q: Query, level: float) -> float:
    needed = math.floor(level * q.nrel(m.rel) + 0.5)  # lround, as _iprec_agg
    start = max(needed, 1)  # the precision at the start-th relevant document onwards
    return max(map(truediv, count(start), q.ranks(m.rel)[start - 1 :]), default=0.0)


def _iprec_exprs(m: Measure, key: str) -> Exprs:
    assert m.level is not None  # the parser requires the recall level
    return [_iprec_agg(m, m.level, key)], pl.col(key).fill_null(0.0)


def _iprec(m: Measure, q: Query) -> float:
    assert m.level is not None
    return _iprec_at(m, q, m.level)


def _iprec_avg_exprs(m: Measure, key: str) -> Exprs:
    keys = [f"{key}_{i}" for i in range(len(ELEVEN_POINTS))]
    aggs = [_iprec_agg(m, level, k) for level, k in zip(ELEVEN_POINTS, keys, strict=True)]
    total = pl.sum_horizontal([pl.col(k).fill_null(0.0) for k in keys])
    return aggs, total / len(ELEVEN_POINTS)


def _iprec_avg(m: Measure, q: Query) -> float:
    return sum(_iprec_at(m, q, level) for level in ELEVEN_POINTS) / len(ELEVEN_POINTS)


def _set_exprs(m: Measure, key: str) -> Exprs:
    a = pl.col(key)
    agg = [pl.col(f"rel{m.rel}").sum().alias(key)]
    precision = safe_div(a, pl.col("num_ret"))
    recall = safe_div(a, pl.col(f"nrel{m.rel}"))
    if m.name == "SetP":
        return agg, precision
    if m.name == "SetR":
        return agg, recall
    b = m.beta
    f = (b + 1.0) * precision * recall / (b * precision + recall)
    return agg, pl.when(a > 0).then(f).otherwise(0.0)


def _set(m: Measure, q: Query) -> float:
    a = q.hits(m.rel)
    precision, recall = div(a, q.num_ret), div(a, q.nrel(m.rel))
    if m.name == "SetP":
        return precision
    if m.name == "SetR":
        return recall
    b = m.beta
    return (b + 1.0) * precision * recall / (b * precision + recall) if a > 0 else 0.0


def _err_exprs(m: Measure, key: str) -> Exprs:
    grade = pl.col("grade").clip(0, ERR_MAX_GRADE).cast(pl.Float64)
    satisfied = (2.0**grade - 1.0) / 2.0**ERR_MAX_GRADE
    # Chance the user reaches this rank: every judged document above failed to satisfy
    # (an unjudged document has gain 0 and changes nothing).
    reached = (1.0 - satisfied).cum_prod().shift(1, fill_value=1.0)
    term = satisfied * reached / pl.col("rank").cast(pl.Float64)
    return [term.filter(pl.col("rank") <= m.cutoff).sum().alias(key)], pl.col(key)


def _err(m: Measure, q: Query) -> float:
    assert m.cutoff is not None
    total, reached = 0.0, 1.0
    for rank, grade in q.judged:
        satisfied = (2.0 ** float(min(max(grade, 0), ERR_MAX_GRADE)) - 1.0) / 2.0**ERR_MAX_GRADE
        if rank <= m.cutoff:
            total += satisfied * reached / float(rank)
        reached *= 1.0 - satisfied
    return total


def _rbp_exprs(m: Measure, key: str) -> Exprs:
    p = m.persistence
    weight = pl.lit(p) ** (pl.col("rank") - 1).cast(pl.Float64)
    if m.name == "RBP":
        agg = [weight.filter(pl.col(f"rel{m.rel}")).sum().alias(key)]
        return agg, (1.0 - p) * pl.col(key)
    # Residual: 1 minus the weight of the judged ranks, (1 - p) * sum of p^(i-1) over them. The
    # rest is the unjudged ranks plus the tail beyond the list: (1 - p) sum_unjudged + p^n.
    agg = [weight.filter(pl.col("grade") >= 0).sum().alias(key)]
    return agg, 1.0 - (1.0 - p) * pl.col(key)


def _rbp(m: Measure, q: Query) -> float:
    p = m.persistence
    if m.name == "RBP":
        return (1.0 - p) * sum(_weights(p, q, m.rel))
    # Residual: what the unjudged ranks and the tail beyond the list could still add.
    return 1.0 - (1.0 - p) * sum(_weights(p, q, 0))


def _weights(p: float, q: Query, level: int) -> list[float]:
    return [math.pow(p, float(r - 1)) for r, g in q.judged if g >= level]


# Interpolated precision at a recall level (`IPrec@0.1`), and trec_eval's 11pt_avg.
LEVELS = tuple(f"{i / 10:.2f}" for i in range(11))  # trec_eval's default recall levels
ENTRIES = (
    Entry(
        "IPrec",
        "recall",
        REL,
        ("IPrec@r",),
        ("IPrec@0.1",),
        polars=_iprec_exprs,
        kernel=_iprec,
        trec_eval=(TrecName("iprec_at_recall", "recall", LEVELS),),
    ),
    Entry(
        "IPrecAvg",
        "none",
        REL,
        ("IPrecAvg",),
        ("IPrecAvg",),
        polars=_iprec_avg_exprs,
        kernel=_iprec_avg,
        trec_eval=(TrecName("11pt_avg"),),
    ),
    Entry(
        "SetP",
        "none",
        REL,
        ("SetP",),
        ("SetP",),
        polars=_set_exprs,
        kernel=_set,
        needs_num_ret=True,
        trec_eval=(TrecName("set_P"),),
    ),
    Entry(
        "SetR",
        "none",
        REL,
        ("SetR",),
        ("SetR",),
        kind="binary_at_one_relevant",
        polars=_set_exprs,
        kernel=_set,
        trec_eval=(TrecName("set_recall"),),
    ),
    Entry(
        "SetF",
        "none",
        frozenset({"rel", "beta"}),
        ("SetF",),
        ("SetF",),
        polars=_set_exprs,
        kernel=_set,
        needs_num_ret=True,
        trec_eval=(TrecName("set_F", "beta"),),
    ),
    Entry("ERR", "required", frozenset(), ("ERR@k",), ("ERR@10",), polars=_err_exprs, kernel=_err),
    Entry(
        "RBP",
        "none",
        frozenset({"rel", "p"}),
        ("RBP",),
        ("RBP(p=0.8)",),
        polars=_rbp_exprs,
        kernel=_rbp,
        default_p=0.8,
    ),
    Entry(
        "RBPResid",
        "none",
        frozenset({"rel", "p"}),
        ("RBPResid",),
        ("RBPResid(p=0.8)",),
        polars=_rbp_exprs,
        kernel=_rbp,
        default_p=0.8,
    ),
)
