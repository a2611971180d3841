"""Read and write TREC run and qrels files, fast, or say in one line what is wrong with them.

Formats (whitespace-separated, one record a line, as trec_eval reads them):

- run:   ``query_id Q0 doc_id rank score tag`` (the rank field is ignored: trec_eval ranks by
  score descending, ties broken by document id descending, and so do we);
- qrels: ``query_id iteration doc_id grade`` (a negative grade means "in the pool, unjudged").

Gzipped files are read as they are (detected by their magic bytes, not their name). Lines that
are blank or start with ``#`` are skipped, as trec_eval 10 does for its commented test files.

Paths are literal: ``sys[1].run`` is that file, never a glob pattern (Polars would expand
``*``, ``?`` and ``[...]`` and silently read another file). ``-`` is standard input, and a FIFO
or a process substitution (``<(zcat run.gz)``) is read as a stream, gzipped or not: such input is
read once into memory, so every later look at it (to name a bad line) reuses those bytes.

Speed matters (a run of 7,000 queries x 1,000 documents is 7 million lines), so Polars' CSV
reader does the parsing on the common single-space or single-tab layouts; anything else (mixed
whitespace, padding) goes through a line reader split by a regular expression. Validation is
vectorised; only when it fails do we look for the first offending line to name it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.io.sources import STDIN, STDIN_NAME, Source, open_source, run_tag
from goldset_tui.io.tables import raise_if_not_utf8

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)

RUN_FIELDS = ("query_id", "q0", "doc_id", "file_rank", "score", "tag")
QRELS_FIELDS = ("query_id", "iteration", "doc_id", "grade")
RUN_SCHEMA = {
    "query_id": pl.String,
    "doc_id": pl.String,
    "score": pl.Float64,
    "rank": pl.Int64,
    "tag": pl.String,
}
# The qrels frame every part passes around (docs/DEVELOPING.md, "Contracts"): written here once.
QRELS_SCHEMA: dict[str, type[pl.DataType]] = {
    "query_id": pl.String,
    "doc_id": pl.String,
    "grade": pl.Int64,
}
# Opening a path (literal; `-`, FIFOs, gzip) lives in goldset_tui.io.sources, without Polars.
__all__ = ["STDIN", "STDIN_NAME", "Source", "open_source", "read_qrels", "read_run", "run_tag"]

# The layouts the fast path tries, in this order.
SEPARATORS = (" ", "\t")


# "Two separators in a row" as compiled patterns: `b"  " in text` runs CPython's generic search,
# which stops at every separator (a sixth of a run's bytes); re's literal search takes a quarter
# less CPU on a 7-million-line run (0.19-0.22 s against 0.27-0.29 s, min of 5, three times).
_TWO_IN_A_ROW = {sep: re.compile(re.escape((sep * 2).encode())) for sep in SEPARATORS}


class _Unparsed(Exception):
    """The fast path could not read the file; the careful path will say why."""


def parse_separated(
    source: Path | bytes,
    fields: tuple[str, ...],
    keep: dict[str, type[pl.DataType]],
    separator: str,
) -> pl.DataFrame | None:
    """The ``keep`` columns of every record, split on one ``separator``; None when Polars refuses
    the text or some line has a missing, empty or extra field (the careful path says which).

    Shared with :mod:`goldset_tui.io.run_scan`, which calls it on slices of a file: a file is
    clean exactly when each of its slices is, so both readers accept the same files."""
    if isinstance(source, bytes):
        frame = _parse_clean(source, fields, keep, separator)
        if frame is not None:
            return frame
    # One field more than the format has: it must stay empty on every line, which catches a
    # line with too many fields even though the reader skips columns we do not select.
    schema = {f: keep.get(f, pl.String) for f in fields} | {"_extra": pl.String}
    try:
        frame = (
            pl.scan_csv(
                source,
                glob=False,  # a path is literal: `sys[1].run` is not a pattern
                has_header=False,
                separator=separator,
                quote_char=None,
                comment_prefix="#",
                schema=schema,
                raise_if_empty=False,
                truncate_ragged_lines=True,
                missing_columns="insert",
            )
            .select(*keep, "_extra", _missing(f for f in fields if f not in keep))
            .collect()
        )
    except (pl.exceptions.PolarsError, OSError, ValueError):
        return None
    # An empty field (double separator, trailing space) or a short line shows up as a null, in
    # a column kept or not: `q Q0 d 1 0.5` is a short line even when the tag is not wanted.
    nulls = frame.null_count().row(0)
    if any(nulls[:-2]) or nulls[-2] != frame.height or frame.get_column("_missing").any():
        return None
    return frame.drop("_extra", "_missing")


def _parse_clean(
    source: bytes, fields: tuple[str, ...], keep: dict[str, type[pl.DataType]], separator: str
) -> pl.DataFrame | None:
    """parse_separated's answer for text with no empty field, at less cost; None when unsure.

    parse_separated reads every field not kept (Q0, the rank, the tag: three string columns of
    7 million values in a large run) only to see that none is missing or empty, which costs more
    than the columns it keeps. Here only the last field is read: present on every line, with
    no extra field, each line has exactly the format's fields; and with no two separators in a
    row anywhere, none of them is empty (an empty first field is a null query id). So when all of
    this holds, the full check would pass and give the same kept columns; when not, it decides.
    Polars refuses text that is not UTF-8 even in the fields it skips (tests/unit/eval/
    test_clean_parse.py holds it to that, with a bad byte in the Q0 and tag fields)."""
    if _TWO_IN_A_ROW[separator].search(source):
        return None
    last = fields[-1]
    columns = [*keep, *([] if last in keep else [last])]
    schema = {f: keep.get(f, pl.String) for f in fields} | {"_extra": pl.String}
    try:
        frame = (
            pl.scan_csv(
                source,
                has_header=False,
                separator=separator,
                quote_char=None,
                # Counting lines that may hold comments is a tenth of the parse: not when
                # there can be none.
                comment_prefix="#" if b"#" in source else None,
                schema=schema,
                raise_if_empty=False,
                truncate_ragged_lines=True,
                missing_columns="insert",
            )
            .select(*columns, "_extra")
            .collect()
        )
    except (pl.exceptions.PolarsError, OSError, ValueError):
        return None
    nulls = frame.null_count().row(0)
    if any(nulls[:-1]) or nulls[-1] != frame.height:
        return None
    return frame.select(*keep)


def _missing(unkept: Iterable[str]) -> pl.Expr:
    """Whether a line lacks one of the fields no column is kept for (a boolean, not the text)."""
    checks = [pl.col(f).is_null() for f in unkept]
    return (pl.any_horizontal(checks) if checks else pl.lit(False)).alias("_missing")


def _fast(
    source: Path | bytes, fields: tuple[str, ...], keep: dict[str, type[pl.DataType]]
) -> pl.DataFrame:
    """Polars' CSV reader on a single-separator layout; raises _Unparsed on any doubt."""
    for sep in SEPARATORS:
        frame = parse_separated(source, fields, keep, sep)
        if frame is not None and frame.height:
            return frame
    raise _Unparsed


def _careful(src: Source, fields: tuple[str, ...]) -> pl.DataFrame:
    """Every line split on any run of whitespace; the first malformed line is an InputError."""
    path, source = src.path, src.data
    try:
        lines = pl.read_lines(
            source, name="text", row_index_name="line", row_index_offset=1, glob=False
        )
    except pl.exceptions.PolarsError:
        raise_if_not_utf8(
            Path(path), source if isinstance(source, bytes) else Path(source).read_bytes()
        )
        raise InputError(path, "cannot be read as text lines") from None
    lines = lines.with_columns(pl.col("text").str.strip_chars()).filter(
        (pl.col("text") != "") & ~pl.col("text").str.starts_with("#")
    )
    if lines.height == 0:
        raise InputError(path, "no records: the file holds only blank or comment lines")
    pattern = r"^" + r"\s+".join([r"(\S+)"] * len(fields)) + r"$"
    split = lines.with_columns(pl.col("text").str.extract_groups(pattern).alias("f")).with_columns(
        pl.col("f").struct.rename_fields(list(fields))
    )
    bad = split.filter(pl.col("f").struct.field(fields[0]).is_null())
    if bad.height:
        row = bad.row(0, named=True)
        found = len(row["text"].split())
        raise InputError(
            path,
            f"expected {len(fields)} whitespace-separated fields ({' '.join(fields)}), found {found}",
            line=row["line"],
        )
    return split.select("line", pl.col("f").struct.unnest())


def _parse(
    src: Source, fields: tuple[str, ...], keep: dict[str, type[pl.DataType]]
) -> pl.DataFrame:
    """The kept fields with their types, plus ``line`` when the careful path was needed."""
    p = src.path
    if isinstance(src.data, bytes) and not src.data.strip():
        raise InputError(p, "file is empty")
    try:
        return _fast(src.data, fields, keep)
    except _Unparsed:
        pass
    frame = _careful(src, fields)
    for name, dtype in keep.items():
        if dtype == pl.String:
            continue
        cast = frame.with_columns(pl.col(name).cast(dtype, strict=False).alias("_cast"))
        bad = cast.filter(pl.col("_cast").is_null())
        if bad.height:
            row = bad.row(0, named=True)
            kind = "an integer" if dtype == pl.Int64 else "a number"
            raise InputError(
                p, f"{name} {row[name]!r} is not {kind}", line=row["line"], column=name
            )
        frame = cast.with_columns(pl.col("_cast").alias(name)).drop("_cast")
    return frame.select("line", *keep)


def _first_duplicate_line(src: Source, what: str) -> InputError:
    """Re-read carefully (with line numbers) to name the second line of the first duplicate."""
    path = src.path
    frame = _careful(src, RUN_FIELDS if what == "run" else QRELS_FIELDS)
    if what == "qrels":  # repeats of the same judgment are harmless; conflicting grades are not
        frame = frame.filter(pl.col("grade").n_unique().over("query_id", "doc_id") > 1)
    dup = frame.filter(pl.struct("query_id", "doc_id").is_first_distinct().not_()).row(
        0, named=True
    )
    first = frame.filter(
        (pl.col("query_id") == dup["query_id"]) & (pl.col("doc_id") == dup["doc_id"])
    )
    verb = "has two different grades" if what == "qrels" else "appears twice"
    return InputError(
        path,
        f"document {dup['doc_id']!r} {verb} for query {dup['query_id']!r} "
        f"(first on line {first['line'][0]})",
        line=dup["line"],
        column="doc_id",
    )


def _first_non_finite_line(src: Source) -> InputError:
    """`nan` and `inf` parse as floats, but a NaN score has no place in an order: name the line."""
    path = src.path
    frame = _careful(src, RUN_FIELDS)
    scores = frame.get_column("score").cast(pl.Float64, strict=False)
    row = frame.filter(~scores.is_finite()).row(0, named=True)
    return InputError(
        path, f"score {row['score']!r} is not a finite number", line=row["line"], column="score"
    )


def rank_run(run: FrameT, *, order: bool = True) -> FrameT:
    """Add ``rank`` (1-based) in trec_eval order: score descending, ties by doc_id descending.

    One window rank per query over the pair (score, doc_id), both descending: no global sort of
    a 7-million-row frame, and no separate pass for ties (runs with two-decimal scores and fused
    runs are full of them). trec_eval compares ids with strcmp; Polars orders strings by their
    UTF-8 bytes, the same order; -0.0 ties with 0.0 and NaN ranks above every number, as in a
    rank of the score alone. ``order`` sorts the rows by query_id then rank (the evaluation and
    fusion do not need it and skip the cost).
    """
    key = pl.struct(pl.col("score"), pl.col("doc_id"))
    ranked = run.with_columns(
        key.rank("ordinal", descending=True).over("query_id").cast(pl.Int64).alias("rank")
    )
    return ranked.sort("query_id", "rank") if order else ranked


def _has_duplicates(frame: pl.DataFrame) -> bool:
    """Whether some (query, document) pair occurs twice.

    Checked on 64-bit hashes of the pairs first (8 bytes a line rather than a hash table of
    strings); a collision can only raise a false alarm, which the exact check then clears.
    """
    pair = pl.col("query_id").hash(11) ^ pl.col("doc_id").hash(13)
    if frame.select(pair.n_unique()).item() == frame.height:  # n_unique: half is_duplicated's CPU
        return False
    per_query = frame.group_by("query_id").agg(pl.col("doc_id").n_unique() == pl.len())
    return not per_query.get_column("doc_id").all()


def read_run(
    path: str | Path | Source, *, tag: bool = True, order: bool = True, depth: int | None = None
) -> pl.DataFrame:
    """A TREC run: ``query_id, doc_id, score, rank, tag``, sorted by query_id then rank.

    For evaluation, which needs neither: ``tag=False`` leaves the tag column out and
    ``order=False`` leaves the rows in file order (on a 7-million-line run, a column of strings
    and a sort saved). ``depth`` keeps only each query's top ``depth`` documents (pooling), with
    the ranks they have in the whole run; every line is still checked. ``path`` may be ``-``
    (standard input) or a :class:`Source` already opened."""
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    src = path if isinstance(path, Source) else open_source(path)
    keep = {"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}
    frame = _parse(src, RUN_FIELDS, keep | ({"tag": pl.String} if tag else {}))
    if not frame.get_column("score").is_finite().all():
        raise _first_non_finite_line(src)
    if _has_duplicates(frame):
        raise _first_duplicate_line(src, "run")
    columns = [c for c in RUN_SCHEMA if c != "tag" or tag]
    frame = frame.select([c for c in columns if c != "rank"])
    if depth is not None:
        # A document beaten on score by `depth` others cannot make the top `depth`, and everything
        # it beats goes with it: the survivors (ties at the boundary included) keep their ranks.
        frame = frame.filter(pl.col("score").rank("min", descending=True).over("query_id") <= depth)
        return rank_run(frame, order=order).filter(pl.col("rank") <= depth).select(columns)
    return rank_run(frame, order=order).select(columns)


def read_qrels(path: str | Path | Source) -> pl.DataFrame:
    """TREC qrels: ``query_id, doc_id, grade``. The same judgment repeated is kept once; the
    same document given two different grades for one query is an error. ``path`` may be ``-``
    (standard input) or a :class:`Source` already opened."""
    src = path if isinstance(path, Source) else open_source(path)
    frame = _parse(src, QRELS_FIELDS, QRELS_SCHEMA)
    frame = frame.select("query_id", "doc_id", "grade")
    if _has_duplicates(frame):
        frame = frame.unique(maintain_order=True)
        if _has_duplicates(frame):
            raise _first_duplicate_line(src, "qrels")
    return frame


def read_subtopic_qrels(path: str | Path | Source) -> pl.DataFrame:
    """Diversity qrels (TREC Web track, ndeval): ``query_id subtopic doc_id grade``, the second
    column naming the subtopic (intent) the grade is for. Returns ``query_id, subtopic, doc_id,
    grade``; one document graded twice for one subtopic of a query is an error. For ordinary
    measures, :func:`plain_qrels` gives one grade per document (the highest)."""
    src = path if isinstance(path, Source) else open_source(path)
    keep = {"query_id": pl.String, "iteration": pl.String, "doc_id": pl.String, "grade": pl.Int64}
    frame = _parse(src, QRELS_FIELDS, keep).select(
        "query_id", pl.col("iteration").alias("subtopic"), "doc_id", "grade"
    )
    frame = frame.unique(maintain_order=True)
    twice = frame.filter(pl.len().over("query_id", "subtopic", "doc_id") > 1)
    if twice.height:
        row = twice.row(0, named=True)
        raise InputError(
            src.path,
            f"document {row['doc_id']!r} has two different grades for subtopic "
            f"{row['subtopic']!r} of query {row['query_id']!r}",
            column="grade",
        )
    return frame


def plain_qrels(subtopic_qrels: pl.DataFrame) -> pl.DataFrame:
    """One grade per (query, document): the highest over its subtopics (a document relevant to
    any intent is relevant to the query, as ndeval's MAP counts it)."""
    return subtopic_qrels.group_by("query_id", "doc_id", maintain_order=True).agg(
        pl.col("grade").max()
    )


def write_run(run: pl.DataFrame, path: str | Path, tag: str) -> None:
    """``query_id Q0 doc_id rank score tag``, one line each, in trec_eval order."""
    ranked = rank_run(run.select("query_id", "doc_id", "score"))
    out = ranked.select(
        "query_id",
        pl.lit("Q0").alias("q0"),
        "doc_id",
        "rank",
        pl.col("score"),
        pl.lit(tag).alias("tag"),
    )
    out.write_csv(
        Path(path), separator=" ", include_header=False, quote_style="never", float_precision=None
    )


def write_qrels(qrels: pl.DataFrame, path: str | Path) -> None:
    """``query_id 0 doc_id grade``, sorted by query then document."""
    out = qrels.sort(["query_id", "doc_id"]).select(
        "query_id", pl.lit("0").alias("iteration"), "doc_id", pl.col("grade").cast(pl.Int64)
    )
    out.write_csv(Path(path), separator=" ", include_header=False, quote_style="never")
