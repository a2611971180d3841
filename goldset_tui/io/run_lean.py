"""Read a large TREC run for evaluation, keeping only what the measures need: lean in memory.

Evaluating a 7-million-line run held the whole run (query, document, score, rank: about 750 MB
at its peak) to rank every document, when the measures only ever look at the judged documents
(those in the qrels) and at how many documents each query retrieved. :func:`read_run_lean` reads
the run in slices (``io.run_scan``'s, with every check read_run makes) and keeps:

- ``judged``: the run's rows whose (query, document) is in the qrels, with their rank in the
  whole run in trec_eval's order (score descending, ties by document id descending);
- ``num_ret``: how many documents the run retrieved for each query (every query of the run).

A judged document's rank is 1 + the documents of its query with a higher score + those with the
same score and a larger id. The first count comes from each row's query and score alone (12
bytes a row, the query as a code over the qrels' queries; rows of other queries only count);
document ids are needed only for scores tied with a judged document's, and are then fetched by a
second pass over the slices, for those scores only.

Its contract: ``judged`` holds exactly the rows and ranks of ``read_run(path)`` restricted to
the qrels' (query, document) pairs, and ``num_ret`` its row count per query; any doubt (a slice
read_run's parser refuses, a non-finite score, a possible duplicate, no record) raises
:class:`Doubt` and the caller uses read_run, which gives the answer or the one-line error.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from goldset_tui.io import run_scan
from goldset_tui.io.sources import Source


class Doubt(Exception):
    """read_run must read this run: it gives the answer or the error."""


@dataclass(frozen=True)
class LeanRun:
    judged: pl.DataFrame  # query_id, doc_id, score, rank: the run's rows in the qrels
    num_ret: pl.DataFrame  # query_id, num_ret: every query of the run


def _pieces(src: Source) -> Iterator[bytes]:
    if isinstance(src.data, bytes):
        return run_scan._split(src.data)
    return run_scan._slices(Path(src.data))


def _frames(src: Source) -> Iterator[pl.DataFrame]:
    """Each slice's ``query_id, doc_id, score``, checked as read_run checks them."""
    separator: str | None = None
    try:
        for piece in _pieces(src):
            frame, separator = run_scan._parse(piece, separator)
            if frame.height:
                if not frame.get_column("score").is_finite().all():
                    raise Doubt
                yield frame
    except run_scan._Doubt:
        raise Doubt from None


def read_run_lean(src: Source, qrels: pl.DataFrame) -> LeanRun:
    """The run behind ``src`` as the measures of ``qrels`` need it (see the module)."""
    queries = qrels.get_column("query_id").unique().sort()
    codes = pl.Enum(queries)
    pairs = qrels.select("query_id", "doc_id").unique()
    # The pairs by the duplicate check's hash: a slice's judged rows are found by one integer
    # lookup a row, then checked exactly once at the end (a collision is only a candidate).
    judged_hashes = pairs.select(run_scan._PAIR).to_series().implode()
    hashes: list[pl.Series] = []
    others: list[pl.DataFrame] = []  # rows of queries not in the qrels: only counted
    thin: list[pl.DataFrame] = []
    judged: list[pl.DataFrame] = []
    rows = 0
    for frame in _frames(src):
        pair = frame.select(run_scan._PAIR).to_series()
        hashes.append(pair)
        in_qrels = frame.get_column("query_id").is_in(queries.implode())
        others.append(frame.filter(~in_qrels).group_by("query_id").agg(pl.len().alias("n")))
        frame = frame.with_columns(pair.alias("_pair")).filter(in_qrels)
        frame = frame.with_row_index("_row", offset=rows)
        rows += frame.height
        judged.append(frame.filter(pl.col("_pair").is_in(judged_hashes)).drop("_pair"))
        thin.append(frame.select(pl.col("query_id").cast(codes), "score"))
    if not hashes:
        raise Doubt  # no record: read_run says so
    all_hashes = pl.concat(hashes, rechunk=False)
    if all_hashes.n_unique() != all_hashes.len():  # a repeated pair, or a collision
        raise Doubt
    del hashes, all_hashes
    found = pl.concat(judged).join(pairs, on=["query_id", "doc_id"], how="semi")
    scores = pl.concat(thin, rechunk=False)  # no copy of the 7 million rows
    del thin, judged
    counted = scores.group_by("query_id").agg(pl.len().alias("n"))
    num_ret = (
        pl.concat([counted.with_columns(pl.col("query_id").cast(pl.String)), *others])
        .group_by("query_id")
        .agg(pl.col("n").sum().cast(pl.Int64).alias("num_ret"))
    )
    # For every row: 1 + the documents of its query scored higher, and + those scored the same.
    ranks = scores.select(
        pl.col("score").rank(method, descending=True).over("query_id").alias(method)
        for method in ("min", "max")
    )
    del scores
    at = found.get_column("_row")
    found = found.with_columns(
        ranks.get_column("min").gather(at).cast(pl.Int64).alias("rank"),
        (ranks.get_column("max").gather(at) > ranks.get_column("min").gather(at)).alias("_tied"),
    )
    del ranks
    found = _break_ties(src, found)
    return LeanRun(found.select("query_id", "doc_id", "score", "rank"), num_ret)


def _break_ties(src: Source, found: pl.DataFrame) -> pl.DataFrame:
    """Ranks of judged documents whose score others in their query share: + the tied
    documents with a larger id (trec_eval's order), from a second pass for those scores."""
    tied = found.filter("_tied").select("query_id", "score").unique()
    if tied.height == 0:
        return found
    # The documents of every tied (query, score), judged or not, from the slices again.
    group = [f.join(tied, on=["query_id", "score"], how="semi") for f in _frames(src)]
    shared = pl.concat(group).with_columns(
        pl.col("doc_id").rank("ordinal", descending=True).over("query_id", "score").alias("_by_id")
    )
    return (
        found.join(
            shared.select("query_id", "doc_id", "_by_id"), on=["query_id", "doc_id"], how="left"
        )
        .with_columns((pl.col("rank") + pl.col("_by_id").fill_null(1) - 1).alias("rank"))
        .drop("_by_id")
    )
