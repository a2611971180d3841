"""Read a large TREC run for evaluation, keeping only what the measures need: lean in memory.

Evaluating a 7-million-line run held the whole run (query, document, score, rank: about 750 MB
at its peak) to rank every document, when the measures only ever look at the judged documents
(those in the qrels) and at how many documents each query retrieved. :func:`read_run_lean` reads
the run in slices (``io.run_scan``'s, with every check read_run makes) and keeps:

- ``judged``: the run's rows whose (query, document) is in the qrels, with their rank in the
  whole run in trec_eval's order (score descending, ties by document id descending);
- ``num_ret``: how many documents the run retrieved for each query (every query of the run).

A judged document's rank is 1 + the documents of its query with a higher score + those with the
same score and a larger id. The first count comes from each row's query and score alone (10
bytes a row, the query as a code over the qrels' queries; rows of other queries only count),
by looking the judged scores up in each query's sorted scores (:func:`_ranks`); document ids are
needed only for scores tied with a judged document's, and are then fetched by a second pass over
the slices, for those scores only. The duplicate check keeps an 8-byte hash a line, apart, and
drops it once done.

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

from goldset_tui.io.run_scan import (
    PAIR_HASH,
    Doubt,
    file_slices,
    has_repeats,
    parsed_slices,
    split_slices,
)
from goldset_tui.io.sources import Source

__all__ = ["Doubt", "LeanRun", "read_run_lean"]


@dataclass(frozen=True)
class LeanRun:
    judged: pl.DataFrame  # query_id, doc_id, score, rank: the run's rows in the qrels
    num_ret: pl.DataFrame  # query_id, num_ret: every query of the run


def _pieces(src: Source) -> Iterator[bytes]:
    if isinstance(src.data, bytes):
        return split_slices(src.data)
    return file_slices(Path(src.data))


def _frames(src: Source) -> Iterator[pl.DataFrame]:
    """Each slice's ``query_id, doc_id, score``, checked as read_run checks them (the next one
    parsed while this one is used: ``run_scan.parsed_slices``)."""
    for frame in parsed_slices(_pieces(src)):
        if frame.height:
            if not frame.get_column("score").is_finite().all():
                raise Doubt
            yield frame


def read_run_lean(src: Source, qrels: pl.DataFrame) -> LeanRun:
    """The run behind ``src`` as the measures of ``qrels`` need it (see the module)."""
    queries = qrels.get_column("query_id").unique().sort()
    codes = pl.Enum(queries)
    pairs = qrels.select("query_id", "doc_id").unique()
    # The pairs by the duplicate check's hash: a slice's judged rows are found by one integer
    # lookup a row, then checked exactly once at the end (a collision is only a candidate).
    judged_hashes = pairs.select(PAIR_HASH).to_series().implode()
    others: list[pl.DataFrame] = []  # counts of the queries not in the qrels
    hashes: list[pl.Series] = []  # every pair's hash, for the duplicate check
    thin: list[pl.DataFrame] = []  # the qrels' queries: query code and score
    judged: list[pl.DataFrame] = []
    for frame in _frames(src):
        frame = frame.with_columns(
            pl.col("query_id").cast(codes, strict=False).alias("_code"),
            PAIR_HASH.alias("_pair"),
        )
        judged.append(frame.filter(pl.col("_pair").is_in(judged_hashes)).drop("_pair"))
        if frame.get_column("_code").null_count():  # not the common case: a query not judged
            rest = frame.filter(pl.col("_code").is_null())
            others.append(rest.group_by("query_id").agg(pl.len().cast(pl.Int64).alias("num_ret")))
            hashes.append(rest.get_column("_pair"))
            frame = frame.filter(pl.col("_code").is_not_null())
        hashes.append(frame.get_column("_pair"))
        thin.append(frame.select("_code", "score"))
    if not thin:
        raise Doubt  # no record: read_run says so
    every = pl.concat(hashes, rechunk=False)
    if has_repeats(every):  # a repeated pair, or a collision: read_run decides
        raise Doubt
    del every, hashes
    found = pl.concat(judged).join(pairs, on=["query_id", "doc_id"], how="semi")
    del judged
    counted, found = _ranks(thin, found)
    num_ret = pl.concat(
        [
            counted.select(pl.col("_code").cast(pl.String).alias("query_id"), "num_ret"),
            *others,
        ]
    )
    num_ret = num_ret.group_by("query_id").agg(pl.col("num_ret").sum().cast(pl.Int64))
    found = _break_ties(src, found)
    return LeanRun(found.select("query_id", "doc_id", "score", "rank"), num_ret)


# The queries are ranked in this many batches (by query code), so that the grouping's copies
# of the rows are a quarter of the run at a time (to keep evaluation under 500 MB).
_BATCHES = 4


def _ranks(thin: list[pl.DataFrame], found: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Each query's row count (``num_ret``), and each judged row's rank: 1 + the rows of its
    query scored higher, with ``_tied`` when another row of its query has the same score (the
    document ids then decide, in :func:`_break_ties`). ``thin`` is emptied as it is used.

    One grouping of every row by query, with the judged rows' scores put in as probes: each
    query's scores are sorted (a thousand or so, in cache) and the probes looked up in them. No
    rank of every row (two window ranks over 7 million rows cost half as much again)."""
    batch = (pl.col("_code").to_physical() % _BATCHES).alias("_batch")
    parts = [part.with_columns(batch) for part in thin]
    thin.clear()
    found = found.with_columns(batch)
    counted, ranked = [], []
    for number in range(_BATCHES):
        rows = [part.filter(pl.col("_batch") == number).drop("_batch") for part in parts]
        if number == _BATCHES - 1:
            parts.clear()
        probes = found.filter(pl.col("_batch") == number).drop("_batch")
        counts, probes = _rank_batch(rows, probes)
        counted.append(counts)
        ranked.append(probes)
    return pl.concat(counted), pl.concat(ranked)


def _rank_batch(rows: list[pl.DataFrame], found: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    probe = pl.col("_probe")
    # The probes in the order the grouping keeps within a query: the judged rows by query.
    found = found.sort("_code", maintain_order=True)
    both = pl.concat(
        [
            *(part.with_columns(pl.lit(False).alias("_probe")) for part in rows),
            found.select("_code", "score", pl.lit(True).alias("_probe")),
        ]
    )
    rows.clear()
    groups = both.group_by("_code").agg(
        (~probe).sum().cast(pl.Int64).alias("num_ret"),
        pl.col("score")
        .filter(~probe)
        .sort()
        .search_sorted(pl.col("score").filter(probe), side="right")
        .alias("_upto"),
    )
    # A tie needs two rows of one query with one score: count the rows of the judged scores.
    judged_scores = found.get_column("score").unique().implode()
    shared = (
        both.filter(~probe & pl.col("score").is_in(judged_scores))
        .group_by("_code", "score")
        .agg((pl.len() > 1).alias("_tied"))
    )
    del both
    upto = (
        groups.filter(pl.col("_upto").list.len() > 0)
        .sort("_code")
        .explode("_upto")
        .select((pl.col("num_ret") - pl.col("_upto") + 1).cast(pl.Int64).alias("rank"))
    )
    found = (
        found.with_columns(upto.get_column("rank"))
        .join(shared, on=["_code", "score"], how="left")
        .drop("_code")
    )
    return groups.select("_code", "num_ret"), found


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
