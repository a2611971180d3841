"""Read a TREC run in slices, keeping only what the caller needs: lean in memory, same answers.

:func:`goldset_tui.io.trec.read_run` holds a whole run (7 million lines, 261 MB) in memory at
once, and Polars maps the file too; pooling then paid for ranking every document to keep twenty.
:func:`scan_run` reads the file in slices of whole lines and keeps:

- ``depth=k`` (``goldset pool``): each query's top k so far; the top k of the union of the
  slices' candidates is the top k of the run, and only those are ranked in trec_eval order;
- ``queries=``: the rows of those queries only (for a caller that scores no other query; the
  eval command does not use it, since it reports the run's queries missing from the qrels).

Its contract is read_run's: on a good file it returns exactly the frame
``read_run(path, tag=False, order=False, depth=depth)`` returns (restricted to ``queries``), the
same rows in the same order; on any doubt it hands the file to read_run, which then gives the
same answer or the same one-line :class:`~goldset_tui.errors.InputError`. Doubt means: a path
that is not a regular non-empty file ('-', a FIFO, a missing file: read_run handles or names
them), a slice that read_run's own single-separator parser
(:func:`~goldset_tui.io.trec.parse_separated`) refuses, a non-finite score, a possible duplicate
document, or no record at all. So every check read_run makes is still made, on every line, and
its messages are never copied here.

Paths are opened as given (never a glob pattern); gzipped files are decompressed as read_run
does it, whole.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import polars as pl

from goldset_tui.io.sources import GZIP_MAGIC as _GZIP_MAGIC
from goldset_tui.io.sources import STDIN, open_source
from goldset_tui.io.trec import RUN_FIELDS, SEPARATORS, parse_separated, rank_run, read_run

# Bytes per slice. Large enough that Polars' parallel parser has work for every core, small
# enough that one slice and its parse stay a fraction of the run (a 261 MB run is 16 slices), and
# below glibc's largest mmap threshold, so the buffers are reused instead of faulted in afresh
# (32 MB slices cost twice the CPU time to read).
SLICE_BYTES = 16 * 2**20
# Candidates for the top k gathered before they are cut down again (at least).
_MERGE_ROWS = 1_000_000

_KEEP: dict[str, type[pl.DataType]] = {
    "query_id": pl.String,
    "doc_id": pl.String,
    "score": pl.Float64,
}
_COLUMNS = ["query_id", "doc_id", "score", "rank"]
# A row's (query, document) as one integer, the same hash as read_run's duplicate check: equal
# pairs always hash equal, so no repeated pair is missed; different pairs may collide, so a
# repeated hash only means "let read_run decide", never "a duplicate".
PAIR_HASH = pl.col("query_id").hash(11) ^ pl.col("doc_id").hash(13)


class Doubt(Exception):
    """Something read_run must look at: it will give the answer or the error. Raised by every
    reader here (and :mod:`goldset_tui.io.run_lean`) instead of any message of its own."""


def scan_run(
    path: str | Path,
    *,
    depth: int | None = None,
    queries: pl.Series | Collection[str] | None = None,
) -> pl.DataFrame:
    """``query_id, doc_id, score, rank`` as ``read_run(path, tag=False, order=False,
    depth=depth)`` gives them, keeping only the rows of ``queries`` when given."""
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    if queries is None or isinstance(queries, pl.Series):
        wanted = queries
    else:
        wanted = pl.Series("query_id", list(queries), dtype=pl.String)
    p = Path(path)
    try:
        frame = _scan(p, depth, wanted)
    except Doubt:
        frame = read_run(p, tag=False, order=False, depth=depth)
        if wanted is not None:
            frame = frame.filter(pl.col("query_id").is_in(wanted.implode()))
    return frame


def _scan(path: Path, depth: int | None, wanted: pl.Series | None) -> pl.DataFrame:
    kept: list[pl.DataFrame] = []  # the rows kept (evaluation) or the top-k candidates (pooling)
    docs: list[pl.Series] = []  # a hash of every line's document, for duplicates
    stretches: list[pl.DataFrame] = []  # each slice's stretches of one query: query_id, _n
    rows = 0
    limit = _MERGE_ROWS
    for frame in parsed_slices(file_slices(path)):
        if frame.height == 0:
            continue
        if not frame.get_column("score").is_finite().all():
            raise Doubt
        # Every line, kept or not: a duplicate can hide outside the top k or the queries kept.
        frame = frame.with_columns(
            pl.col("query_id").rle_id().alias("_stretch"), pl.col("doc_id").hash(13).alias("_doc")
        )
        counts = frame.group_by("_stretch", maintain_order=True).agg(
            pl.col("query_id").first(),
            pl.len().alias("_n"),
            (pl.col("_doc").n_unique() == pl.len()).alias("_once"),
        )
        if not counts.get_column("_once").all():
            raise Doubt  # a document twice in a stretch of one query, or a collision
        docs.append(frame.get_column("_doc"))
        stretches.append(counts.select("query_id", "_n"))
        height = frame.height
        if depth is not None:  # file order, to give the top k back in read_run's row order
            frame = _top_of_runs(frame.with_row_index("_row", offset=rows), depth)
        frame = frame.drop("_stretch", "_doc")
        rows += height
        if wanted is not None:
            frame = frame.filter(pl.col("query_id").is_in(wanted.implode()))
        kept.append(frame)
        if depth is not None and sum(part.height for part in kept) > limit:
            kept = [_top(pl.concat(kept), depth)]
            # Survivors are cut again only once three times as many new rows have come: a run
            # grouped by query keeps few, but a shuffled one at a large depth keeps most rows
            # of each slice, and cutting after every slice would redo them again and again.
            limit = max(_MERGE_ROWS, 4 * kept[0].height)
    if rows == 0:
        raise Doubt  # no record: read_run says so
    if _repeated_pair(docs, stretches):  # a repeated pair, or a collision read_run clears
        raise Doubt
    del docs, stretches
    result = pl.concat(kept)
    del kept
    if depth is not None:
        ranked = rank_run(_top(result, depth), order=False).filter(pl.col("rank") <= depth)
        return ranked.sort("_row").select(_COLUMNS)
    return rank_run(result, order=False).select(_COLUMNS)


def _repeated_pair(docs: list[pl.Series], stretches: list[pl.DataFrame]) -> bool:
    """Whether some (query, document) pair may occur twice, from each line's document hash and
    each slice's stretches of consecutive lines of one query (every slice's stretches already
    hold no document twice). Exact: no repeated pair is missed.

    A run is written query by query: each query's lines are one stretch, cut at most by the
    slice boundaries. Then a repeated pair lies within one stretch, and only the stretches
    a boundary cut are checked again (a few thousand lines), instead of sorting a hash of every
    line's pair (a fifth of the CPU time of reading a grouped run). A query met in two places
    (a shuffled run) gets the check every line got before: each line's pair hash, sorted."""
    local = pl.concat(stretches)
    whole = local.group_by(pl.col("query_id").rle_id().alias("_whole"), maintain_order=True).agg(
        pl.col("query_id").first(), pl.col("_n").sum(), pl.len().alias("_parts")
    )
    hashes = pl.concat(docs, rechunk=False)
    if whole.get_column("query_id").n_unique() < whole.height:  # a query in two places
        per_line = local.select(pl.col("query_id").hash(11).repeat_by("_n").explode())
        return has_repeats(per_line.to_series() ^ hashes)
    starts = whole.get_column("_n").cum_sum() - whole.get_column("_n")
    cut = whole.with_columns(starts.alias("_start")).filter(pl.col("_parts") > 1)
    spans = cut.select("_start", "_n").iter_rows()
    return any(hashes.slice(start, n).n_unique() != n for start, n in spans)


def has_repeats(hashes: pl.Series) -> bool:
    """Whether some value occurs twice (exact: no value is missed). Sorted on one thread, then counted in one pass: two
    thirds of the CPU of ``n_unique`` (which sorts too, on both cores) on 7 million hashes, and
    the other core is reading the next run anyway."""
    return hashes.sort(multithreaded=False).n_unique() != hashes.len()


def _top(frame: pl.DataFrame, depth: int) -> pl.DataFrame:
    """The rows that can still be in their query's top ``depth``: a score at least the
    ``depth``-th best of the query (ties at the boundary kept; the exact order comes last).
    The same rows as read_run's pre-filter (a "min" rank of at most ``depth``) at half its cost:
    a top-k threshold per query needs no full rank."""
    threshold = pl.col("score").top_k(depth).min().over("query_id")
    return frame.filter(pl.col("score") >= threshold)


def _top_of_runs(frame: pl.DataFrame, depth: int) -> pl.DataFrame:
    """A slice cut down as it arrives, at two thirds of :func:`_top`'s cost: the threshold is
    taken per stretch of consecutive lines of one query (integer groups, no hashing of the ids).
    Each stretch holds part of one query, and the ``depth``-th best score of a part is never
    above the query's, so every row of the query's top ``depth`` survives (the exact order comes
    last). A run grouped by query, as runs are, keeps about ``depth`` rows a query; a shuffled
    one keeps most rows here, and :func:`_top` cuts them when the slices are merged. The
    stretches are numbered in ``_stretch`` (``rle_id`` of the query id)."""
    return frame.filter(pl.col("score") >= pl.col("score").top_k(depth).min().over("_stretch"))


def parsed_slices(pieces: Iterable[bytes]) -> Iterator[pl.DataFrame]:
    """Each slice's ``query_id, doc_id, score`` (:func:`parse_slice`, the run's separator
    chosen by the first), the next slice read and parsed on a helper thread while the caller
    works on this one.

    Reading slice by slice keeps memory at a slice, but left one core idle: the slices were read,
    parsed and ranked one after the other, where the whole-file parse it replaced kept both cores
    busy (7,000 x 1,000: 1.8 s of wall time before the slices, 3 s after, at the same CPU). Polars
    releases the interpreter while it parses, so the helper's parse overlaps the caller's work
    on the previous slice; one slice ahead at most, so memory holds two. Slices come back in
    file order, and the first error (a :class:`Doubt`, an unreadable file) is raised where the
    serial loop would raise it."""
    source = iter(pieces)
    separator: str | None = None

    def step() -> pl.DataFrame | None:
        piece = next(source, None)  # one helper thread: the iterator is never shared
        if piece is None:
            return None
        frame, _ = parse_slice(piece, separator)
        return frame

    first = next(source, None)
    if first is None:
        return
    frame, separator = parse_slice(first, None)
    with ThreadPoolExecutor(max_workers=1) as helper:
        ahead = helper.submit(step)
        try:
            while True:
                yield frame
                following = ahead.result()
                if following is None:
                    return
                ahead = helper.submit(step)
                frame = following
        finally:
            ahead.cancel()


def parse_slice(piece: bytes, separator: str | None) -> tuple[pl.DataFrame, str]:
    """A slice's ``query_id, doc_id, score`` (file order) and the run's separator: the first
    slice (``separator=None``) chooses it as read_run's fast path would for the whole file (space
    first, then tab), later slices must parse with it. Raises :class:`Doubt` on anything
    read_run's parser refuses; it does not check scores are finite or pairs are unique."""
    for sep in SEPARATORS if separator is None else (separator,):
        frame = parse_separated(piece, RUN_FIELDS, _KEEP, sep)
        if frame is not None and (frame.height or separator is not None):
            return frame, sep
    raise Doubt


def file_slices(path: Path) -> Iterator[bytes]:
    """The file in slices of whole lines (each ends at a line break, the last one at the end of
    the file), together the file's bytes exactly; a regular file is read as it goes, a gzipped
    one decompressed whole as read_run does it. Raises :class:`Doubt` for standard input, a
    missing, empty or not regular file: read_run handles or names them."""
    if str(path) == STDIN:
        raise Doubt  # standard input, even if a file is named '-'
    try:
        info = os.stat(path)
    except OSError:
        raise Doubt from None
    if not stat.S_ISREG(info.st_mode) or info.st_size == 0:
        raise Doubt
    with open(path, "rb", buffering=0) as fh:
        gzipped = fh.read(2) == _GZIP_MAGIC
        if gzipped:
            source = open_source(path).data  # read_run's decompression, and its error
            assert isinstance(source, bytes)
            yield from split_slices(source)
            return
        fh.seek(0)
        while block := fh.read(SLICE_BYTES):
            cut = block.rfind(b"\n") + 1
            if 0 < cut < len(block):  # the partial last line is read again with the next slice
                fh.seek(cut - len(block), os.SEEK_CUR)
                block = block[:cut]
            yield block


def split_slices(data: bytes) -> Iterator[bytes]:
    """``data`` in slices of whole lines of about :data:`SLICE_BYTES` (each ends at a line break,
    the last one at the end of ``data``), together ``data`` exactly."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + SLICE_BYTES - 1) + 1 or len(data)
        yield data[start:end]
        start = end
