"""Measures computed from the whole qrels and run rather than the judged rows alone, in Polars
only (no kernel: an evaluation asking for one goes to the Polars engine):

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
  run are in trec_eval's order (doc id descending; ndeval's Python wrapper takes ascending). Its
  ideal is a greedy approximation that a run can beat: a value can exceed 1.
"""

from __future__ import annotations

import math

from goldset_tui.measures.entry import Entry, Measure
from goldset_tui.measures.exprs import pl, safe_div
from goldset_tui.scalar import as_int


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
    value = pl.when(best > 0).then(score / best).otherwise(safe_div(score, normaliser))
    if not m.normalize:
        value = safe_div(score, normaliser)
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
    return values.select("query_id", safe_div(pl.col("dcg"), pl.col("ideal")).alias(key))


# Compatibility (Clarke et al. 2021): rank-biased overlap with the ideal ranking.
ENTRIES = (
    Entry(
        "Compat",
        "none",
        frozenset({"p", "normalize"}),
        ("Compat",),
        ("Compat(p=0.95)",),
        frame=_compat_frame,
        default_p=0.95,  # ir_measures' default persistence
    ),
    # alpha-nDCG (Clarke et al. 2008) as ndeval: needs qrels with subtopics.
    Entry(
        "alpha_nDCG",
        "required",
        frozenset({"rel", "alpha"}),
        ("alpha_nDCG@k",),
        ("alpha_nDCG@10",),
        bounds=(0.0, None),
        frame=_alpha_ndcg_frame,
        needs_subtopics=True,
    ),
)
