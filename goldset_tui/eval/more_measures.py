"""The measures added for trec_eval and ir_measures parity, as Polars expressions.

Each entry of ``EXTRA`` takes a parsed :class:`Measure` and a column key and returns the same
pair as ``metrics._measure_exprs``: aggregations over one query's judged rows in rank order
(columns ``rank``, ``grade``, ``rel{L}``, ``crel{L}`` and the query's ``nrel{L}``), and the final
value from them, the query's statistics and ``num_ret``. ``metrics.py`` owns the frames; this
module only says what each measure is, with the source it follows:

- ``NumQ``: 1 per query, summed (trec_eval's num_q).
- ``GMAP``: AP per query; ``metrics.aggregate`` takes the geometric mean (trec_eval's gm_map).
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
  relevant ranks (binary gain at ``rel``, as ir_measures). ``RBPResid(p=...)``: its residual,
  what the unjudged ranks and the tail beyond the list could still add (cwl-eval's residual;
  cwl-eval cuts the tail at depth 1000, a difference of p^1000). A query missing from the run
  has residual 1. trec_eval's ``rbp`` differs (graded gains scaled to [0, 1], p = 0.9) and so
  does its ``rbp_resid`` (0 when nothing retrieved is unjudged): they are not aliases.
- ``Compat(p=0.95)``: compatibility (Clarke, Vtyurina & Smucker 2021) as ir_measures computes
  it: rank-biased overlap with the ideal ranking (documents graded > 0, best grade first),
  normalised by the ideal's own (``normalize=false`` leaves it raw). Score ties in the run are in
  trec_eval's order (doc id descending) where ir_measures takes doc id ascending, and equal
  grades in the ideal follow the run's order (unretrieved last, then qrels file order) where
  ir_measures takes the score with 0 for unretrieved documents: the same unless scores tie or
  are negative.
- ``alpha_nDCG(alpha=0.5)@k``: alpha-nDCG (Clarke et al. 2008) as ndeval (TREC Web track)
  computes it, on diversity qrels (``query subtopic doc grade``): binary relevance per subtopic
  at ``rel``, the greedy ideal ranking of ndeval (ties to the larger doc id). Score ties in the
  run are in trec_eval's order (doc id descending; ndeval's Python wrapper takes ascending).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import polars as pl

from goldset_tui.eval.kernels import ELEVEN_POINTS, ERR_MAX_GRADE  # shared with the small path
from goldset_tui.eval.measures import Measure
from goldset_tui.scalar import as_int

# Measures whose final value needs the number of documents the run returned for the query.
NEEDS_NUM_RET = frozenset({"NumRet", "Judged", "SetP", "SetF"})

Exprs = tuple[list[pl.Expr], pl.Expr]


def _safe_div(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    return pl.when(den > 0).then(num / den).otherwise(0.0)


def _num_q(m: Measure, key: str) -> Exprs:
    return [], pl.lit(1.0)


def _gmap(m: Measure, key: str) -> Exprs:
    rel = pl.col(f"rel{m.rel}")
    agg = [(pl.col(f"crel{m.rel}") / pl.col("rank")).filter(rel).sum().alias(key)]
    return agg, _safe_div(pl.col(key), pl.col(f"nrel{m.rel}"))


def _iprec_agg(m: Measure, level: float, key: str) -> pl.Expr:
    crel, rel = pl.col(f"crel{m.rel}"), pl.col(f"rel{m.rel}")
    # lround(level * R): C's round half away from zero (R >= 0, so floor(x + 0.5)).
    needed = (pl.lit(level) * pl.col(f"nrel{m.rel}").first() + 0.5).floor()
    precision = crel / pl.col("rank")
    return precision.filter(rel & (crel >= needed)).max().alias(key)


def _iprec(m: Measure, key: str) -> Exprs:
    assert m.level is not None  # the parser requires the recall level
    return [_iprec_agg(m, m.level, key)], pl.col(key).fill_null(0.0)


def _iprec_avg(m: Measure, key: str) -> Exprs:
    keys = [f"{key}_{i}" for i in range(len(ELEVEN_POINTS))]
    aggs = [_iprec_agg(m, level, k) for level, k in zip(ELEVEN_POINTS, keys, strict=True)]
    total = pl.sum_horizontal([pl.col(k).fill_null(0.0) for k in keys])
    return aggs, total / len(ELEVEN_POINTS)


def _set(m: Measure, key: str) -> Exprs:
    a = pl.col(key)
    agg = [pl.col(f"rel{m.rel}").sum().alias(key)]
    precision = _safe_div(a, pl.col("num_ret"))
    recall = _safe_div(a, pl.col(f"nrel{m.rel}"))
    if m.name == "SetP":
        return agg, precision
    if m.name == "SetR":
        return agg, recall
    b = m.beta
    f = (b + 1.0) * precision * recall / (b * precision + recall)
    return agg, pl.when(a > 0).then(f).otherwise(0.0)


def _rbp(m: Measure, key: str) -> Exprs:
    p = m.persistence
    weight = pl.lit(p) ** (pl.col("rank") - 1).cast(pl.Float64)
    if m.name == "RBP":
        agg = [weight.filter(pl.col(f"rel{m.rel}")).sum().alias(key)]
        return agg, (1.0 - p) * pl.col(key)
    # Residual: 1 minus the weight of the judged ranks, (1 - p) * sum of p^(i-1) over them. The
    # rest is the unjudged ranks plus the tail beyond the list: (1 - p) sum_unjudged + p^n.
    agg = [weight.filter(pl.col("grade") >= 0).sum().alias(key)]
    return agg, 1.0 - (1.0 - p) * pl.col(key)


def _err(m: Measure, key: str) -> Exprs:
    grade = pl.col("grade").clip(0, ERR_MAX_GRADE).cast(pl.Float64)
    satisfied = (2.0**grade - 1.0) / 2.0**ERR_MAX_GRADE
    # Chance the user reaches this rank: every judged document above failed to satisfy
    # (an unjudged document has gain 0 and changes nothing).
    reached = (1.0 - satisfied).cum_prod().shift(1, fill_value=1.0)
    term = satisfied * reached / pl.col("rank").cast(pl.Float64)
    return [term.filter(pl.col("rank") <= m.cutoff).sum().alias(key)], pl.col(key)


def _compat(m: Measure, key: str) -> Exprs:
    return [], pl.col(key)


def _compat_frame(qrels: pl.DataFrame, ranked: pl.DataFrame, m: Measure, key: str) -> pl.DataFrame:
    """``query_id, key``: Compat (Clarke, Vtyurina & Smucker 2021) as ir_measures computes it,
    the rank-biased overlap of the run with an ideal ranking, normalised by the ideal's own.

    RBO at depth D = sum over d <= D of p^(d-1) |run[:d] & ideal[:d]| / d, over the same sum of
    p^(d-1). A document in both lists is in the overlap from depth max(run rank, ideal rank) on,
    so the sum is, per such document, S(D) - S(m - 1) with S(k) = sum_{d <= k} p^(d-1) / d, a
    table computed once: no loop over depths or documents."""
    p = m.persistence
    # The ideal: documents graded > 0 (ir_measures' test, whatever rel), grade descending, then
    # as the run ranks them (retrieved first), then in qrels file order.
    ideal = (
        qrels.with_row_index("_order")
        .filter(pl.col("grade") > 0)
        .join(ranked.select("query_id", "doc_id", "rank"), on=["query_id", "doc_id"], how="left")
        .sort(
            "query_id",
            "grade",
            "rank",
            "_order",
            descending=[False, True, False, False],
            nulls_last=True,
        )
        .with_columns(pl.int_range(1, pl.len() + 1).over("query_id").alias("irank"))
    )
    num_ret = ranked.group_by("query_id").agg(pl.len().alias("n"))
    per_query = ideal.group_by("query_id").agg(
        pl.len().alias("nrel"),
        pl.max_horizontal("rank", "irank").filter(pl.col("rank").is_not_null()).alias("m"),
    )
    per_query = num_ret.join(per_query, on="query_id", how="left").with_columns(
        pl.col("nrel").fill_null(0)
    )
    per_query = per_query.with_columns(pl.max_horizontal("n", "nrel").alias("depth"))
    top = as_int(per_query.get_column("depth").max() or 0)
    d = pl.int_range(0, top + 1, eager=True).cast(pl.Float64)
    # S(k) for k = 0..top, and T(k) = S(0) + ... + S(k - 1) for the ideal's own overlap.
    step = pl.when(d > 0).then(pl.lit(p) ** (d - 1) / d).otherwise(0.0)
    table = pl.select(step.alias("t")).with_columns(pl.col("t").cum_sum().alias("S"))
    table = table.with_columns(pl.col("S").cum_sum().shift(1, fill_value=0.0).alias("T"))
    s_of, t_of = table.get_column("S"), table.get_column("T")
    depth = pl.col("depth")
    s_depth = s_of.gather(per_query.get_column("depth")).alias("s_depth")
    per_query = per_query.with_columns(s_depth)
    exploded = per_query.select("query_id", "m").explode("m").drop_nulls("m")
    exploded = exploded.with_columns(s_of.gather(exploded.get_column("m") - 1).alias("s_before"))
    overlap = exploded.group_by("query_id").agg(pl.col("s_before").sum(), pl.len().alias("k"))
    per_query = per_query.join(overlap, on="query_id", how="left").with_columns(
        pl.col("s_before").fill_null(0.0), pl.col("k").fill_null(0)
    )
    per_query = per_query.with_columns(t_of.gather(per_query.get_column("nrel")).alias("t_nrel"))
    score = pl.col("k") * pl.col("s_depth") - pl.col("s_before")
    best = pl.col("nrel") * pl.col("s_depth") - pl.col("t_nrel")
    normaliser = (1.0 - pl.lit(p) ** depth.cast(pl.Float64)) / (1.0 - p)
    value = pl.when(best > 0).then(score / best).otherwise(_safe_div(score, normaliser))
    if not m.normalize:
        value = _safe_div(score, normaliser)
    # Both are ratios in [0, 1], but the sums are prefix sums subtracted and divided: a perfect
    # ranking came out as 1.0000000000000007 (two documents, p = 0.95, raw). Never past a bound.
    return per_query.select("query_id", value.clip(0.0, 1.0).alias(key))


def _alpha_ndcg_frame(
    subtopics: pl.DataFrame, ranked: pl.DataFrame, m: Measure, key: str
) -> pl.DataFrame:
    """``query_id, key``: alpha-nDCG@k (Clarke et al. 2008) as ndeval computes it.

    A document's gain at rank r is the sum, over the subtopics it is relevant to (grade >= rel,
    binary), of (1 - alpha)^(documents above it relevant to that subtopic), discounted by
    log2(r + 1). The ideal is ndeval's greedy one: at each rank, the document of largest gain
    given those already placed, ties to the larger doc id. The run side is one pass of
    cumulative counts; the greedy ideal is one vectorised step per rank (k steps, all queries
    at once), not a loop over documents."""
    assert m.cutoff is not None  # the parser requires it
    keep = 1.0 - m.alpha
    relevant = subtopics.filter(pl.col("grade") >= m.rel).select("query_id", "subtopic", "doc_id")
    hits = (
        ranked.filter(pl.col("rank") <= m.cutoff)
        .select("query_id", "doc_id", "rank")
        .join(relevant, on=["query_id", "doc_id"], how="inner")
        .sort("query_id", "subtopic", "rank")
    )
    seen_before = pl.int_range(pl.len()).over("query_id", "subtopic")
    gain = pl.lit(keep) ** seen_before.cast(pl.Float64) / (pl.col("rank") + 1.0).log(2.0)
    dcg = hits.group_by("query_id").agg(gain.sum().alias("dcg"))
    # Greedy ideal, rank by rank.
    candidates = relevant
    counts = relevant.select("query_id", "subtopic").unique().with_columns(pl.lit(0).alias("c"))
    ideal_parts = []
    for rank in range(1, m.cutoff + 1):
        if candidates.height == 0:
            break
        gains = (
            candidates.join(counts, on=["query_id", "subtopic"], how="left")
            .group_by("query_id", "doc_id")
            .agg((pl.lit(keep) ** pl.col("c").cast(pl.Float64)).sum().alias("g"))
        )
        chosen = gains.sort(["query_id", "g", "doc_id"], descending=[False, True, True]).unique(
            "query_id", keep="first"
        )
        ideal_parts.append(chosen.select("query_id", pl.col("g") / math.log2(rank + 1)))
        picked = candidates.join(chosen.select("query_id", "doc_id"), on=["query_id", "doc_id"])
        bumped = picked.select("query_id", "subtopic").with_columns(pl.lit(1).alias("add"))
        counts = (
            counts.join(bumped, on=["query_id", "subtopic"], how="left")
            .with_columns(pl.col("c") + pl.col("add").fill_null(0))
            .drop("add")
        )
        candidates = candidates.join(
            chosen.select("query_id", "doc_id"), on=["query_id", "doc_id"], how="anti"
        )
    if ideal_parts:
        ideal = pl.concat(ideal_parts).group_by("query_id").agg(pl.col("g").sum().alias("ideal"))
    else:
        ideal = pl.DataFrame(schema={"query_id": pl.String, "ideal": pl.Float64})
    values = ideal.join(dcg, on="query_id", how="left").with_columns(pl.col("dcg").fill_null(0.0))
    return values.select("query_id", _safe_div(pl.col("dcg"), pl.col("ideal")).alias(key))


EXTRA: dict[str, Callable[[Measure, str], Exprs]] = {
    "NumQ": _num_q,
    "GMAP": _gmap,
    "IPrec": _iprec,
    "IPrecAvg": _iprec_avg,
    "SetP": _set,
    "SetR": _set,
    "SetF": _set,
    "ERR": _err,
    "RBP": _rbp,
    "RBPResid": _rbp,
    "Compat": _compat,
    "alpha_nDCG": _compat,  # the value comes whole from its frame, as Compat's
}
# Measures computed from the whole qrels and run rather than the judged rows alone.
FRAMES: dict[str, Callable[[pl.DataFrame, pl.DataFrame, Measure, str], pl.DataFrame]] = {
    "Compat": _compat_frame,
    "alpha_nDCG": _alpha_ndcg_frame,  # given the subtopic qrels
}
