"""Read a large TREC run for evaluation, keeping only what the measures need: lean in memory.

Evaluating a 7-million-line run held the whole run (query, document, score, rank: about 750 MB
at its peak) to rank every document, when the measures only ever look at the judged documents
(those in the qrels) and at how many documents each query retrieved. :func:`read_run_lean` reads
the run in slices (``io.run_scan``'s, with every check read_run makes) and keeps:

- ``judged``: the run's rows whose (query, document) is in the qrels, with their rank in the
  whole run in trec_eval's order (score descending, ties by document id descending), and their
  grade in these qrels (``_grade``);
- ``num_ret``: how many documents the run retrieved for each query (every query of the run).

A judged document's rank is 1 + the documents of its query with a higher score + those with the
same score and a larger id. The first count comes from each row's query and score alone (12
bytes a row, the query as a code over the qrels' queries; rows of other queries only count),
by one sort of an integer a row made of both and binary searches in it (:func:`_ranks`); document ids are
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
from dataclasses import dataclass, field
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
    judged: pl.DataFrame  # query_id, doc_id, score, rank, _grade: the run's rows in the qrels
    num_ret: pl.DataFrame  # query_id, num_ret: every query of the run
    # The qrels frame ``_grade`` comes from: the measures take the grades from ``judged`` only
    # when they score with this very frame (else they join their own qrels, as for a whole run).
    read_with: pl.DataFrame | None = field(default=None, repr=False, compare=False)

    def judged_for(self, qrels: pl.DataFrame) -> pl.DataFrame:
        """``judged`` to score with ``qrels``: with ``_grade`` when these are the qrels it was
        read with, else without (the caller then joins its own qrels' grades)."""
        if qrels is self.read_with or "_grade" not in self.judged.columns:
            return self.judged
        return self.judged.drop("_grade")


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


class _JudgedHashes:
    """Which rows may be judged, from the duplicate check's hash of their (query, document):
    one bit a hash value (its low bits), set for every pair of the qrels. A judged row is never
    missed (equal pairs hash equal); others pass at the table's fill rate (about 1 in 40 here,
    for 420,000 pairs), and the exact check of the candidates comes once, at the end.

    A lookup in a bitmap of a few MB a row: a third of the CPU of ``is_in``, which built its
    hash set of the qrels' pairs again for every slice."""

    def __init__(self, hashes: pl.Series) -> None:
        size = 1 << max(16, min(28, (hashes.len() * 32).bit_length()))
        self.mask = size - 1
        spots = (hashes & self.mask).cast(pl.UInt32)
        self.table = pl.repeat(False, size, eager=True).scatter(spots, True)

    def __call__(self, pair: pl.Series) -> pl.Series:
        return self.table.gather((pair & self.mask).cast(pl.UInt32))


def read_run_lean(src: Source, qrels: pl.DataFrame) -> LeanRun:
    """The run behind ``src`` as the measures of ``qrels`` need it (see the module)."""
    queries = qrels.get_column("query_id").unique().sort()
    codes = pl.Enum(queries)
    # The qrels' pairs are unique (the readers and the store refuse a pair graded twice), so
    # neither the bitmap nor the join at the end needs a unique() of 420,000 pairs.
    maybe_judged = _JudgedHashes(qrels.select(PAIR_HASH).to_series())
    others: list[pl.DataFrame] = []  # counts of the queries not in the qrels
    hashes: list[pl.Series] = []  # every pair's hash, for the duplicate check
    thin: list[pl.DataFrame] = []  # the qrels' queries: query code and score
    judged: list[pl.DataFrame] = []
    for frame in _frames(src):
        frame = frame.with_columns(
            pl.col("query_id").cast(codes, strict=False).alias("_code"),
            PAIR_HASH.alias("_pair"),
        )
        judged.append(frame.filter(maybe_judged(frame.get_column("_pair"))).drop("_pair"))
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
    # The exact check, and each judged row's grade (the measures need it: one join, not two).
    graded = qrels.select("query_id", "doc_id", pl.col("grade").alias("_grade"))
    found = pl.concat(judged).join(graded, on=["query_id", "doc_id"], how="inner")
    del judged
    counts, found = _ranks(thin, found)
    counted = pl.DataFrame({"query_id": queries, "num_ret": counts}).filter(pl.col("num_ret") > 0)
    num_ret = pl.concat([counted, *others])
    num_ret = num_ret.group_by("query_id").agg(pl.col("num_ret").sum().cast(pl.Int64))
    found = _break_ties(src, found)
    return LeanRun(found.select("query_id", "doc_id", "score", "rank", "_grade"), num_ret, qrels)


# A row's place in its query as one unsigned integer (see :func:`_ranks`): the query's code
# times 2**32, plus the score scaled onto 0..2**31.
_QUERY_STEP = 2**32
_BUCKETS = 2**31


def _scale(thin: list[pl.DataFrame]) -> tuple[float, float]:
    """The lowest score and the factor that maps the run's scores onto ``0.._BUCKETS``; factor 0
    when there is no such factor (every score equal, a range too wide for a float or too
    narrow to divide by): every row of a query then shares one bucket, and :func:`_ranks`
    compares their scores exactly."""
    scores = [part.get_column("score") for part in thin if part.height]
    if not scores:
        return 0.0, 0.0
    low = min(float(column.min()) for column in scores)  # type: ignore[arg-type]
    high = max(float(column.max()) for column in scores)  # type: ignore[arg-type]
    span = high - low
    factor = _BUCKETS / span if 0 < span < float("inf") else 0.0
    return low, (factor if factor < float("inf") else 0.0)  # a tiny span: no finite factor


def _key(low: float, factor: float) -> pl.Expr:
    """``_code * 2**32 + (score - low) * factor``, truncated: never decreasing as the score
    grows (each rounding step of a subtraction and a product by a positive number keeps the
    order, and the truncation too), within ``0..2**31 (1 + a few ulps)``, so below the next
    query's codes. Two rows of one query in different buckets are in the buckets' order; two
    rows in one bucket may have equal or different scores (only their scores tell)."""
    code = pl.col("_code").to_physical().cast(pl.UInt64) * _QUERY_STEP
    if factor == 0:
        return code.alias("_key")
    return (code + ((pl.col("score") - low) * factor).cast(pl.UInt64)).alias("_key")


def _ranks(thin: list[pl.DataFrame], found: pl.DataFrame) -> tuple[pl.Series, pl.DataFrame]:
    """Each query code's row count (``num_ret``, 0 for a query the run lacks), and each judged
    row's rank: 1 + the rows of its query scored higher, with ``_tied`` when another row of its
    query has the same score (the document ids then decide, in :func:`_break_ties`). ``thin``
    is emptied as it is used.

    One sort of an integer a row (:func:`_key`: query code above, the score's bucket below), no
    grouping of 7 million rows by query: the rows of a judged row's query in a higher bucket are
    the rows after its bucket and before the next query's codes, found by binary search in the
    sorted keys (the judged rows' keys sorted too, so the searches walk forward). Only the rows
    sharing a judged row's bucket with another row need their scores: those few are compared
    exactly, grouped by (bucket, score)."""
    low, factor = _scale(thin)
    key = _key(low, factor)
    keyed = [part.select(key, "score") for part in thin]
    thin.clear()
    keys = pl.concat([part.get_column("_key") for part in keyed]).sort(multithreaded=False)
    found = found.with_columns(key).sort("_key")
    probe = found.get_column("_key")
    after = keys.search_sorted(probe, side="right").cast(pl.Int64)
    shared = after - keys.search_sorted(probe, side="left").cast(pl.Int64)
    queries = found.schema["_code"]
    assert isinstance(queries, pl.Enum)
    steps = pl.int_range(0, queries.categories.len() + 1, dtype=pl.UInt64, eager=True)
    bounds = keys.search_sorted(steps * _QUERY_STEP, side="left").cast(pl.Int64)
    del keys
    ends = bounds.gather(found.get_column("_code").to_physical().cast(pl.Int64) + 1)
    found = found.with_columns(_above=ends - after)
    # The judged rows sharing their bucket with another row: the rows of those buckets, each
    # (bucket, score) counted, and per bucket the rows of a higher score.
    crowded = found.filter(shared > 1).get_column("_key").unique().implode()
    if crowded.list.len().item():
        rows = pl.concat([part.filter(pl.col("_key").is_in(crowded)) for part in keyed])
        scores = (
            rows.group_by("_key", "score")
            .agg(pl.len().alias("_same"))
            .sort("_key", "score", descending=[False, True])
            .with_columns(
                (pl.col("_same").cum_sum().over("_key") - pl.col("_same")).alias("_higher")
            )
        )
        found = found.join(scores, on=["_key", "score"], how="left")
    else:
        found = found.with_columns(_same=pl.lit(None, pl.UInt32), _higher=pl.lit(None, pl.UInt32))
    del keyed
    found = found.with_columns(
        (pl.col("_above") + pl.col("_higher").fill_null(0) + 1).cast(pl.Int64).alias("rank"),
        (pl.col("_same").fill_null(1) > 1).alias("_tied"),
    )
    return bounds.diff().slice(1), found.drop("_key", "_above", "_same", "_higher", "_code")


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
