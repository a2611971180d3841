"""Which machine-labelled pairs should a person check? (issue 15, ``goldset validate``)

Given a machine judge's labels (``query_id, doc_id, grade`` and a ``confidence`` that may be null),
:func:`choose_for_validation` picks at most ``budget`` pairs for a human look, in three steps:

1. **Does its grade decide the order of two systems?** With runs and a measure, every run is
   scored per query under the machine's labels and averaged as ``goldset eval`` does (over the
   queries with a relevant document). For each labelled pair the grade is then changed to the
   nearest grade on the other side of the measure's relevance line L (its ``rel``, 1 as
   trec_eval's, nDCG's too): a relevant label (grade >= L) becomes L - 1, a non-relevant one L;
   on 0-3 with L = 1 that is 1+ -> 0 and 0 -> 1. Both must be grades of the store's scale
   (:func:`relevance_line`): on 1-5 at L = 1 no grade is below the line, and a label moved to 0
   would be a grade the scale does not have, so that is refused, not guessed. The pair's query
   is re-scored for every run, and the means are recomputed exactly (the query entering or
   leaving the average included). ``flips`` counts the pairs of systems whose order that one
   change reverses (a tie counts as a reversal). A person's grade on such a pair can change
   which system wins: those are checked first.
2. **How sure was the machine?** Then the lowest ``confidence`` first; a label without one
   comes after those with one (nothing says it is doubtful).
3. **Every stratum gets checks.** The strata take turns, in name order, each giving its best
   remaining pair, so the budget is split evenly (a stratum with fewer pairs than its share gives
   all it has and the rest goes to the others). Agreement per stratum needs pairs in every
   stratum (seed 004: a stratum's interval narrows only with its own count); a choice by
   confidence alone would spend the budget on the stratum the machine finds hardest.

Ties after that: ``query_id``, then ``doc_id`` (reproducible). Pairs in ``exclude`` (already graded
by a person) are never chosen: they are validation already.

Contract: returns ``query_id, doc_id, stratum, grade, confidence, flips, reason`` in the order
chosen (the turn order), at most ``budget`` rows; pure, writes nothing. Without runs ``flips`` is
0 everywhere and the choice is confidence and strata alone.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.eval.measures import parse_measure
from goldset_tui.eval.metrics import evaluate_wide
from goldset_tui.ranking.systems import per_query

NO_STRATUM = "(no stratum)"
_SEP = "\x1f"  # joins query and doc into the id of a "what if" query; not in any id (see io)


DEFAULT_SCALE = (0, 3)


def relevance_line(measure: str, scale: tuple[int, int] = DEFAULT_SCALE) -> int:
    """The grade L from which ``measure`` counts a document relevant (its ``rel``; 1 for a
    measure without one, as trec_eval and nDCG's gain), checked against the store's ``scale``
    (lowest, highest grade): the "what if" moves a label to L - 1 or to L, so both must be
    grades of the scale. Otherwise one InputError line naming what is unsupported."""
    m = parse_measure(measure)
    line, (low, high) = m.rel, scale
    if line - 1 < low:
        raise InputError(
            None,
            f"the store's grades run {low}-{high} and {m} counts grade >= {line} as relevant: no "
            "grade of the scale is below that line, so a label cannot be moved across it; give -m "
            f"a relevance level inside the scale, e.g. -m 'P(rel={low + 1})@10'",
        )
    if line > high:
        raise InputError(
            None,
            f"the store's grades run {low}-{high} and {m} counts grade >= {line} as relevant: no "
            f"grade of the scale reaches that line; give -m a relevance level of at most {high}",
        )
    return line


def _what_if_qrels(labels: pl.DataFrame, line: int = 1) -> pl.DataFrame:
    """One copy of each query's labels per labelled pair of it, with that pair's grade moved
    to the nearest grade across the relevance line ``line`` (``line - 1`` or ``line``); the
    copy's query id is ``query<SEP>doc``."""
    variants = labels.select(
        "query_id", pl.col("doc_id").alias("_changed"), pl.col("grade").alias("_old")
    )
    expanded = variants.join(labels, on="query_id")
    changed = pl.col("doc_id") == pl.col("_changed")
    return expanded.select(
        (pl.col("query_id") + _SEP + pl.col("_changed")).alias("query_id"),
        "doc_id",
        pl.when(changed)
        .then(pl.when(pl.col("grade") >= line).then(line - 1).otherwise(line))
        .otherwise(pl.col("grade"))
        .cast(pl.Int64)
        .alias("grade"),
    )


def flip_counts(
    labels: pl.DataFrame,
    runs: Mapping[str, pl.DataFrame],
    measure: str,
    scale: tuple[int, int] = DEFAULT_SCALE,
) -> pl.DataFrame:
    """``query_id, doc_id, flips``: how many pairs of systems one changed grade reorders, on
    the grading ``scale`` (lowest, highest grade) the labels are on."""
    line = relevance_line(measure, scale)
    systems = list(runs)
    qrels = labels.select("query_id", "doc_id", pl.col("grade").cast(pl.Int64))
    table = per_query(qrels, runs, measure)  # query_id + one column per system
    n = table.height
    sums = {s: float(table[s].sum()) if n else 0.0 for s in systems}
    old_q = dict(zip(table["query_id"].to_list(), table.select(systems).rows(), strict=True))

    what_if = _what_if_qrels(qrels, line)
    new_cols = []
    for s in systems:
        run = runs[s].select(
            "query_id", "doc_id", "score", *(["rank"] if "rank" in runs[s].columns else [])
        )
        copies = (
            what_if.select("query_id")
            .unique()
            .with_columns(pl.col("query_id").str.split(_SEP).list.first().alias("_q"))
        )
        run_copies = copies.join(run.rename({"query_id": "_q"}), on="_q").drop("_q")
        wide = evaluate_wide(what_if, run_copies, [measure]).select(
            "query_id", pl.col(measure).cast(pl.Float64).alias(s)
        )
        new_cols.append(wide)
    new = new_cols[0]
    for w in new_cols[1:]:
        new = new.join(w, on="query_id", how="full", coalesce=True)
    has_rel = what_if.group_by("query_id").agg((pl.col("grade") >= 1).any().alias("_in"))
    new = has_rel.join(new, on="query_id", how="left").fill_null(0.0)

    pairs = [(x, y) for i, x in enumerate(systems) for y in systems[i + 1 :]]
    mean = {s: sums[s] / n if n else 0.0 for s in systems}
    rows = []
    for row in new.iter_rows(named=True):
        q, d = row["query_id"].split(_SEP, 1)
        old = old_q.get(q)
        n2 = n - (old is not None) + bool(row["_in"])
        after = {}
        for i, s in enumerate(systems):
            total = sums[s] - (old[i] if old is not None else 0.0) + (row[s] if row["_in"] else 0.0)
            after[s] = total / n2 if n2 else 0.0
        flips = 0
        for x, y in pairs:
            before, now = mean[x] - mean[y], after[x] - after[y]
            if (before > 0) - (before < 0) != (now > 0) - (now < 0):
                flips += 1
        rows.append((q, d, flips))
    return pl.DataFrame(
        rows, schema={"query_id": pl.Utf8, "doc_id": pl.Utf8, "flips": pl.Int64}, orient="row"
    )


def choose_for_validation(
    labels: pl.DataFrame,
    budget: int,
    *,
    strata: pl.DataFrame | None = None,
    runs: Mapping[str, pl.DataFrame] | None = None,
    measure: str = "nDCG@10",
    exclude: pl.DataFrame | None = None,
    scale: tuple[int, int] = DEFAULT_SCALE,
) -> pl.DataFrame:
    """The pairs to check, best first within each stratum, strata taking turns (module doc).
    ``scale``: the store's lowest and highest grade, which the "what if" stays on."""
    cand = labels.select(
        pl.col("query_id").cast(pl.Utf8),
        pl.col("doc_id").cast(pl.Utf8),
        pl.col("grade").cast(pl.Int64),
        (
            pl.col("confidence").cast(pl.Float64)
            if "confidence" in labels.columns
            else pl.lit(None, pl.Float64).alias("confidence")
        ),
    )
    if runs:
        cand = cand.join(
            flip_counts(cand, runs, measure, scale), on=["query_id", "doc_id"], how="left"
        )
        cand = cand.with_columns(pl.col("flips").fill_null(0))
    else:
        cand = cand.with_columns(pl.lit(0, pl.Int64).alias("flips"))
    if exclude is not None and exclude.height:
        cand = cand.join(
            exclude.select("query_id", "doc_id"), on=["query_id", "doc_id"], how="anti"
        )
    if strata is not None:
        by_query = strata.select(pl.col("query_id").cast(pl.Utf8), pl.col("stratum").cast(pl.Utf8))
        by_query = by_query.unique("query_id", keep="first")
        cand = cand.join(by_query, on="query_id", how="left")
    else:
        cand = cand.with_columns(pl.lit(None, pl.Utf8).alias("stratum"))
    cand = cand.with_columns(pl.col("stratum").fill_null(NO_STRATUM)).sort(
        [pl.col("flips"), pl.col("confidence"), "query_id", "doc_id"],
        descending=[True, False, False, False],
        nulls_last=True,
    )
    queues = {s: part for (s,), part in cand.group_by("stratum", maintain_order=True)}
    order = sorted(queues)
    taken: list[pl.DataFrame] = []
    cursor = dict.fromkeys(order, 0)
    while len(taken) < budget and any(cursor[s] < queues[s].height for s in order):
        for s in order:
            if len(taken) >= budget:
                break
            if cursor[s] < queues[s].height:
                taken.append(queues[s].slice(cursor[s], 1))
                cursor[s] += 1
    chosen = pl.concat(taken) if taken else cand.head(0)
    return chosen.with_columns(
        pl.when(pl.col("flips") > 0)
        .then(pl.format("its grade decides the order of {} pair(s) of systems", "flips"))
        .when(pl.col("confidence").is_not_null())
        .then(pl.format("machine confidence {}", pl.col("confidence").round(3)))
        .otherwise(pl.lit("stratum share"))
        .alias("reason")
    ).select("query_id", "doc_id", "stratum", "grade", "confidence", "flips", "reason")
