"""Which queries a mean is over, what a run and the qrels do not share, and trec_eval's run cuts.

Three ways to average, each a documented choice (read from trec_eval 10's ``trec_eval.c`` and
``meas_avg.c``):

- ``relevant`` (goldset's default): every query in the qrels with a document at or above the
  relevance level; a query missing from the run counts 0. A judged query without a relevant
  document is left out: no ranking can score on it, so it would only dilute the mean.
- ``complete`` (trec_eval ``-c``): every query in the qrels, whatever its grades (trec_eval
  divides by ``num_q_rels``, the number of topics in the qrels file); a query missing from the
  run counts 0, and so does a judged query without a relevant document.
- ``both`` (trec_eval without ``-c``, as trec_eval 9 and pytrec_eval do it): the queries in both
  the qrels and the run. trec_eval 10.0 itself stops with "result qid ... not found in qrels"
  (exit 4) when a qrels topic is missing from the run without ``-c``; its 9.0.8 behaviour, kept
  by pytrec_eval, is the one reproduced.

Queries only in the run are ignored in every mode (trec_eval does the same). A run that shares
no query at all with the qrels is refused by the caller: that is almost always the wrong qrels.

``cut_run`` applies trec_eval's ``-M N`` (each query's top N in trec_eval order) and ``-J``
(documents absent from the qrels, or graded negative, removed before ranking; the ranks close
up, as trec_eval's ``form_res_rels.c`` does: ``-M`` first, then ``-J``).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used: the small-input path of `goldset eval` runs without it
    import polars as pl

MODES = ("relevant", "complete", "both")


@dataclass(frozen=True)
class QuerySets:
    """For one run: the averaged queries, and the mismatches worth a warning (sorted ids)."""

    evaluated: list[str]
    missing_from_run: list[str]
    only_in_run: list[str]
    # Judged queries with no document at the relevance level, which ``relevant`` leaves out of
    # the mean; said out loud, because ``-l 2`` can silently halve the queries averaged.
    left_out_no_relevant: list[str]


def query_sets(
    qrels: pl.DataFrame, run_queries: pl.Series, mode: str = "relevant", level: int = 1
) -> QuerySets:
    """The queries ``mode`` averages over for a run retrieving for ``run_queries``: see
    :func:`sets_of`."""
    import polars as pl

    judged = set(qrels.get_column("query_id").unique().to_list())
    relevant = set(qrels.filter(pl.col("grade") >= level).get_column("query_id").to_list())
    return sets_of(judged, relevant, set(run_queries.to_list()), mode)


def sets_of(
    judged: Collection[str], relevant: Collection[str], ran: Collection[str], mode: str
) -> QuerySets:
    """The queries ``mode`` averages over, from the queries in the qrels (``judged``), those
    with a document at the relevance level (``relevant``) and those in the run (``ran``).

    ``missing_from_run``: the queries the mode would average over if the run had them all
    (scored 0 in ``relevant`` and ``complete``, left out in ``both``). ``only_in_run``: run
    queries absent from the qrels (ignored). ``left_out_no_relevant``: in ``relevant`` mode,
    the judged queries without a document at the level, left out of the mean. Plain Python
    (sets of ids), shared by both evaluation paths."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    base = set(relevant) if mode == "relevant" else set(judged)
    ran = set(ran)
    evaluated = base & ran if mode == "both" else base
    no_relevant = set(judged) - set(relevant) if mode == "relevant" else set()
    return QuerySets(
        evaluated=sorted(evaluated),
        missing_from_run=sorted(base - ran),
        only_in_run=sorted(ran - set(judged)),
        left_out_no_relevant=sorted(no_relevant),
    )


def cut_run(
    run: pl.DataFrame,
    qrels: pl.DataFrame,
    *,
    max_docs: int | None = None,
    judged_only: bool = False,
) -> pl.DataFrame:
    """The run as trec_eval's ``-M max_docs`` and ``-J`` see it (``query_id, doc_id, score,
    rank``; ``rank`` is recomputed after ``-J``)."""
    import polars as pl

    from goldset_tui.io.trec import rank_run

    if max_docs is None and not judged_only:
        return run
    if "rank" not in run.columns:
        run = rank_run(run.select("query_id", "doc_id", "score"), order=False)
    if max_docs is not None:
        run = run.filter(pl.col("rank") <= max_docs)
    if judged_only:
        judged = qrels.filter(pl.col("grade") >= 0).select("query_id", "doc_id")
        kept = run.select("query_id", "doc_id", "score").join(
            judged, on=["query_id", "doc_id"], how="semi"
        )
        run = rank_run(kept, order=False)
    return run


def cut_lean(
    judged: pl.DataFrame,
    num_ret: pl.DataFrame,
    qrels: pl.DataFrame,
    *,
    max_docs: int | None = None,
    judged_only: bool = False,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """:func:`cut_run` for a lean run (``io.run_lean``: its judged rows with their ranks, and
    the documents retrieved per query): the same rows, ranks and counts as cutting the whole
    run. -M keeps the rows ranked <= N and counts min(retrieved, N); -J keeps the documents
    graded >= 0 and ranks them again among themselves (only they are left above each other)."""
    import polars as pl

    from goldset_tui.io.trec import rank_run

    if max_docs is not None:
        judged = judged.filter(pl.col("rank") <= max_docs)
        num_ret = num_ret.with_columns(pl.col("num_ret").clip(upper_bound=max_docs))
    if judged_only:
        graded = qrels.filter(pl.col("grade") >= 0).select("query_id", "doc_id")
        kept = judged.select("query_id", "doc_id", "score").join(
            graded, on=["query_id", "doc_id"], how="semi"
        )
        judged = rank_run(kept, order=False)
        left = judged.group_by("query_id").agg(pl.len().cast(pl.Int64).alias("kept"))
        num_ret = num_ret.join(left, on="query_id", how="left").select(
            "query_id", pl.col("kept").fill_null(0).alias("num_ret")
        )
    return judged, num_ret
