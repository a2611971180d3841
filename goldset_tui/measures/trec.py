"""trec_eval's measures: each family's entry with its Polars expression and its kernel beside it.

Polars expressions aggregate over one query's judged rows in rank order (columns ``rank``,
``grade``, ``rel{L}``, ``crel{L}``, ``cnon{L}``, ``cunj`` and the query's ``nrel{L}``,
``nnon{L}``; ``eval.metrics`` builds them) and finish with the query's statistics and ``num_ret``.
Kernels compute the same value for one :class:`Query` in plain Python, with the same order of
operations (tests/unit/eval/test_small_path.py holds the two equal on every peer file).

trec_eval 10's behaviours kept exactly are listed in ``eval.metrics``. Where ir_measures defines
a name differently, its definition wins for that name: ``Judged@k`` divides by min(k, documents
returned) (trec_eval's unj@k divides by k).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import compress, count, repeat
from operator import gt, truediv
from typing import TYPE_CHECKING

from goldset_tui.measures.entry import Entry, Measure, RanxName, TrecName
from goldset_tui.measures.exprs import discount, gain, idcg_name, pl, safe_div
from goldset_tui.measures.query import INFAP_EPSILON, Query, div
from goldset_tui.measures.query import discount as q_discount
from goldset_tui.measures.query import gain as q_gain

if TYPE_CHECKING:
    Exprs = tuple[list[pl.Expr], pl.Expr]
REL = frozenset({"rel"})
CUTS = ("5", "10", "15", "20", "30", "100", "200", "500", "1000")  # trec_eval's default cutoffs


def _within(m: Measure) -> pl.Expr:
    """Relevant at the measure's level, and at or above its cutoff when it has one."""
    rel = pl.col(f"rel{m.rel}")
    return rel if m.cutoff is None else rel & (pl.col("rank") <= m.cutoff)


def _count_exprs(m: Measure, key: str) -> Exprs:
    """P, R and NumRelRet: the relevant documents found (at the cutoff)."""
    a = pl.col(key)
    final = {
        "P": a / m.cutoff if m.cutoff else a,
        "R": safe_div(a, pl.col(f"nrel{m.rel}")),
        "NumRelRet": a,
    }[m.name]
    return [_within(m).sum().alias(key)], final


def _p(m: Measure, q: Query) -> float:
    assert m.cutoff is not None
    return q.hits(m.rel, m.cutoff) / m.cutoff


def _r(m: Measure, q: Query) -> float:
    return div(q.hits(m.rel, m.cutoff), q.nrel(m.rel))


def _num_rel_ret(m: Measure, q: Query) -> float:
    return float(q.hits(m.rel, m.cutoff))


def _success_exprs(m: Measure, key: str) -> Exprs:
    return [_within(m).any().alias(key)], pl.col(key).cast(pl.Float64)


def _success(m: Measure, q: Query) -> float:
    return 1.0 if q.hits(m.rel, m.cutoff) else 0.0


def _rr_exprs(m: Measure, key: str) -> Exprs:
    return [pl.col("rank").filter(_within(m)).min().alias(key)], safe_div(pl.lit(1.0), pl.col(key))


def _rr(m: Measure, q: Query) -> float:
    return 1.0 / q.ranks(m.rel)[0] if q.hits(m.rel, m.cutoff) else 0.0


def _ap_exprs(m: Measure, key: str) -> Exprs:
    agg = [(pl.col(f"crel{m.rel}") / pl.col("rank")).filter(_within(m)).sum().alias(key)]
    return agg, safe_div(pl.col(key), pl.col(f"nrel{m.rel}"))


def _ap(m: Measure, q: Query) -> float:
    # The precision at each relevant document: (relevant seen so far) / rank, summed in rank
    # order as the Polars expression does.
    ranks = q.ranks(m.rel)[: q.hits(m.rel, m.cutoff)]
    return div(sum(map(truediv, count(1), ranks)), q.nrel(m.rel))


def _ndcg_exprs(m: Measure, key: str) -> Exprs:
    rank = pl.col("rank")
    term = gain(pl.col("grade").fill_null(0), m.dcg) / discount(rank)
    if m.cutoff is not None:
        term = term.filter(rank <= m.cutoff)
    return [term.sum().alias(key)], safe_div(pl.col(key), pl.col(idcg_name(m.dcg, m.cutoff)))


def _ndcg(m: Measure, q: Query) -> float:
    # Only documents with a positive grade gain anything (the others add 0.0, which changes
    # no sum): their ranks and grades in the top k.
    top = q.found[: m.cutoff]
    gained = list(map(gt, top, repeat(0)))
    pairs = zip(compress(count(1), gained), compress(top, gained), strict=False)
    dcg = sum(q_gain(g, m.dcg) / q_discount(r) for r, g in pairs)
    grades = q.sorted_grades()
    ideal = grades[bisect_right(grades, 0) :][::-1][: m.cutoff]  # positive, descending
    idcg = sum(q_gain(g, m.dcg) / q_discount(i) for i, g in enumerate(ideal, start=1))
    return div(dcg, idcg)


def _rprec_exprs(m: Measure, key: str) -> Exprs:
    rel, nrel = pl.col(f"rel{m.rel}"), pl.col(f"nrel{m.rel}")
    return [(rel & (pl.col("rank") <= nrel)).sum().alias(key)], safe_div(pl.col(key), nrel)


def _rprec(m: Measure, q: Query) -> float:
    r = q.nrel(m.rel)
    return div(q.hits(m.rel, r), r)


def _bpref_exprs(m: Measure, key: str) -> Exprs:
    # trec_eval bpref.c: each relevant document loses the share of judged non-relevant
    # documents above it, capped at R, over min(R, N).
    non_above = pl.col(f"cnon{m.rel}")
    r, n = pl.col(f"nrel{m.rel}"), pl.col(f"nnon{m.rel}")
    credit = (
        pl.when(non_above > 0)
        .then(1.0 - pl.min_horizontal(non_above, r) / pl.min_horizontal(r, n))
        .otherwise(1.0)
    )
    return [credit.filter(pl.col(f"rel{m.rel}")).sum().alias(key)], safe_div(pl.col(key), r)


def _bpref(m: Measure, q: Query) -> float:
    r, n = q.nrel(m.rel), q.nnon(m.rel)
    total, non_above = 0.0, 0
    for _, grade in q.judged:
        if grade >= m.rel:
            total += 1.0 - min(non_above, r) / min(r, n) if non_above > 0 else 1.0
        elif grade >= 0:
            non_above += 1
    return div(total, r)


def _infap_exprs(m: Measure, key: str) -> Exprs:
    # trec_eval infAP.c (Yilmaz & Aslam 2006): expected precision at each relevant document,
    # estimated from the judged documents above it; pooled-unjudged ones count as sampled.
    rank = pl.col("rank")
    i = (rank - 1).cast(pl.Float64)
    r_above = (pl.col(f"crel{m.rel}") - 1).cast(pl.Float64)
    n_above = pl.col(f"cnon{m.rel}").cast(pl.Float64)
    u_above = pl.col("cunj").cast(pl.Float64)
    expected = 1.0 / (i + 1.0) + (i / (i + 1.0)) * ((r_above + n_above + u_above) / i) * (
        (r_above + INFAP_EPSILON) / (r_above + n_above + 2 * INFAP_EPSILON)
    )
    credit = pl.when(rank == 1).then(1.0).otherwise(expected)
    agg = [credit.filter(pl.col(f"rel{m.rel}")).sum().alias(key)]
    return agg, safe_div(pl.col(key), pl.col(f"nrel{m.rel}"))


def _infap(m: Measure, q: Query) -> float:
    total, rel_seen, non_above, unj_above = 0.0, 0, 0, 0
    for rank, grade in q.judged:
        if grade >= m.rel:
            rel_seen += 1
            if rank == 1:
                total += 1.0
            else:
                i = float(rank - 1)
                r_above, n_above, u_above = float(rel_seen - 1), float(non_above), float(unj_above)
                total += 1.0 / (i + 1.0) + (i / (i + 1.0)) * ((r_above + n_above + u_above) / i) * (
                    (r_above + INFAP_EPSILON) / (r_above + n_above + 2 * INFAP_EPSILON)
                )
        elif grade >= 0:
            non_above += 1
        else:
            unj_above += 1
    return div(total, q.nrel(m.rel))


def _judged_exprs(m: Measure, key: str) -> Exprs:
    judged = (pl.col("grade") >= 0).fill_null(False) & (pl.col("rank") <= m.cutoff)
    final = safe_div(pl.col(key), pl.min_horizontal(pl.lit(m.cutoff), pl.col("num_ret")))
    return [judged.sum().alias(key)], final


def _judged(m: Measure, q: Query) -> float:
    assert m.cutoff is not None
    hits = sum(1 for r, g in q.judged if g >= 0 and r <= m.cutoff)
    return div(hits, min(m.cutoff, q.num_ret))


ENTRIES = (
    Entry(
        "P",
        "required",
        REL,
        ("P@k",),
        ("P@10", "P(rel=2)@10"),
        kind="binary_at_cutoff_1",
        polars=_count_exprs,
        kernel=_p,
        trec_eval=(TrecName("P", "cut", CUTS),),
        ir_measures=("Precision",),
        ranx=(RanxName("precision", "P", "required"),),
    ),
    Entry(
        "R",
        "required",
        REL,
        ("R@k",),
        ("R@100",),
        kind="binary_at_one_relevant",
        polars=_count_exprs,
        kernel=_r,
        trec_eval=(TrecName("recall", "cut", CUTS),),
        ir_measures=("Recall",),
        ranx=(RanxName("recall", "R", "required"),),
    ),
    Entry(
        "Success",
        "required",
        REL,
        ("Success@k",),
        ("Success@10",),
        kind="binary",
        polars=_success_exprs,
        kernel=_success,
        trec_eval=(TrecName("success", "cut", ("1", "5", "10")),),
        ranx=(RanxName("hit_rate", "Success", "required"),),
    ),
    Entry(
        "RR",
        "optional",
        REL,
        ("RR", "RR@k"),
        ("RR", "RR@10"),
        kind="binary_at_cutoff_1",
        polars=_rr_exprs,
        kernel=_rr,
        trec_eval=(TrecName("recip_rank"),),
        ir_measures=("MRR",),
        ranx=(RanxName("mrr", "RR"),),
    ),
    Entry(
        "AP",
        "optional",
        REL,
        ("AP", "AP@k"),
        ("AP", "AP@100"),
        polars=_ap_exprs,
        kernel=_ap,
        trec_eval=(TrecName("map"), TrecName("map_cut", "cut", CUTS)),
        ir_measures=("MAP",),
        ranx=(RanxName("map", "AP"),),
    ),
    # trec_eval's nDCG takes the grade itself as gain whatever the relevance level, so no `rel`.
    Entry(
        "nDCG",
        "optional",
        frozenset({"dcg"}),
        ("nDCG", "nDCG@k"),
        ("nDCG", "nDCG@10", "nDCG(dcg='exp-log2')@10"),
        polars=_ndcg_exprs,
        kernel=_ndcg,
        needs_ideal_dcg=True,
        trec_eval=(TrecName("ndcg"), TrecName("ndcg_cut", "cut", CUTS)),
        ir_measures=("NDCG",),
        ranx=(RanxName("ndcg", "nDCG"), RanxName("ndcg_burges", "nDCG(dcg='exp-log2')")),
    ),
    Entry(
        "Rprec",
        "none",
        REL,
        ("Rprec",),
        ("Rprec",),
        kind="binary_at_one_relevant",
        polars=_rprec_exprs,
        kernel=_rprec,
        trec_eval=(TrecName("Rprec"),),
        ir_measures=("RPrec",),
        ranx=(RanxName("r-precision", "Rprec", "none"),),
    ),
    Entry(
        "Bpref",
        "none",
        REL,
        ("Bpref",),
        ("Bpref",),
        polars=_bpref_exprs,
        kernel=_bpref,
        trec_eval=(TrecName("bpref"),),
        ir_measures=("BPref",),
        ranx=(RanxName("bpref", "Bpref", "none"),),
    ),
    Entry(
        "infAP",
        "none",
        REL,
        ("infAP",),
        ("infAP",),
        polars=_infap_exprs,
        kernel=_infap,
        trec_eval=(TrecName("infAP"),),
    ),
    Entry(
        "Judged",
        "required",
        frozenset(),
        ("Judged@k",),
        ("Judged@10",),
        kind="binary_at_cutoff_1",
        polars=_judged_exprs,
        kernel=_judged,
        needs_num_ret=True,
    ),
    # Counts: summed on the `all` line, as trec_eval prints them.
    Entry(
        "NumRet",
        "none",
        frozenset(),
        ("NumRet",),
        ("NumRet",),
        bounds=(0.0, None),
        aggregation="sum",
        needs_num_ret=True,
        trec_eval=(TrecName("num_ret"),),
        polars=lambda m, key: ([], pl.col("num_ret")),
        kernel=lambda m, q: float(q.num_ret),
    ),
    Entry(
        "NumRel",
        "none",
        REL,
        ("NumRel",),
        ("NumRel",),
        bounds=(0.0, None),
        aggregation="sum",
        trec_eval=(TrecName("num_rel"),),
        polars=lambda m, key: ([], pl.col(f"nrel{m.rel}")),
        kernel=lambda m, q: float(q.nrel(m.rel)),
    ),
    Entry(
        "NumRelRet",
        "none",
        REL,
        ("NumRelRet",),
        ("NumRelRet",),
        bounds=(0.0, None),
        aggregation="sum",
        trec_eval=(TrecName("num_rel_ret"),),
        polars=_count_exprs,
        kernel=_num_rel_ret,
    ),
    Entry(
        "NumQ",
        "none",
        frozenset(),
        ("NumQ",),
        ("NumQ",),
        bounds=(0.0, None),
        aggregation="sum",
        trec_eval=(TrecName("num_q"),),
        all_line_only=True,
        polars=lambda m, key: ([], pl.lit(1.0)),
        kernel=lambda m, q: 1.0,
    ),
    # trec_eval's gm_map: AP per query, geometric mean over queries (AP floored at 1e-5).
    Entry(
        "GMAP",
        "none",
        REL,
        ("GMAP",),
        ("GMAP",),
        aggregation="gmean",
        polars=_ap_exprs,
        kernel=_ap,
        trec_eval=(TrecName("gm_map"),),
        all_line_only=True,
    ),
)
