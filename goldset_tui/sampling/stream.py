"""Count a query log of any size: Polars' lazy streaming engine, memory bounded by the log's
distinct strings, never by its length.

A plain-text log is scanned line by line (``pl.scan_lines``: split at ``\\n`` only, a ``\\r``
before it dropped, as ``normalise.text_lines`` does), CSV/TSV and Parquet logs are scanned as
tables, and each distinct raw string is counted in one streaming group-by. Everything after that
(normalising, the rules) runs on the distinct strings, which a log repeats thousands of times.

Checks cost nothing on the way: a count that is not a whole number >= 1, a short CSV row, a
header without rows, a column of the wrong type or anything Polars refuses make the log go
through the careful reader (``normalise.read_log``) instead, which names the file, the line and
what is wrong. That reader holds the whole log in memory, so it is only ever the error path
(and the path of a small JSON lines log, which Polars cannot stream line by line with those
checks; a large one is read in pieces through the spill files: ``spill_jsonl``).
"""

from __future__ import annotations

import codecs
from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.io.tables import (
    JSONL_SUFFIXES,
    PARQUET_SUFFIXES,
    TEXT_FORMATS,
    check_file,
)
from goldset_tui.sampling.normalise import read_log

# The whole of a \r-only log (classic Mac line ends) would be one query; looked for in the head.
HEAD_BYTES = 1 << 20
CHUNK = 1 << 22
BOM = b"\xef\xbb\xbf"


class NeedsCarefulRead(Exception):
    """The fast path saw something the careful reader must name."""


def count_raw(path: str | Path) -> pl.DataFrame:
    """``raw: str, count: i64``, one row per distinct raw string of the log (any order)."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in JSONL_SUFFIXES:
        return _group(read_log(p).lazy())
    check_file(p)
    try:
        if suffix in PARQUET_SUFFIXES or suffix in TEXT_FORMATS:
            return _count_table(p, suffix)
        return _count_text(p)
    except NeedsCarefulRead:
        return _group(read_log(p).lazy())


def needs_careful_read(p: Path) -> bool:
    """A plain-text log whose head has ``\\r`` line ends and no ``\\n``: the careful reader says
    how to convert it."""
    with p.open("rb") as handle:
        head = handle.read(HEAD_BYTES)
    return b"\r" in head and b"\n" not in head


def _group(log: pl.LazyFrame) -> pl.DataFrame:
    return log.group_by("raw").agg(pl.col("count").sum()).collect(engine="streaming")


def _count_text(p: Path) -> pl.DataFrame:
    if needs_careful_read(p):
        raise NeedsCarefulRead  # the careful reader says how to convert the line ends
    with p.open("rb") as handle:
        head = handle.read(HEAD_BYTES)
    try:
        counted = (
            pl.scan_lines(p, name="raw", glob=False)
            .group_by("raw")
            .agg(pl.len().cast(pl.Int64).alias("count"))
            .collect(engine="streaming")
        )
    except pl.exceptions.ComputeError:
        _raise_bad_utf8(p)
        raise NeedsCarefulRead from None
    if head.startswith(BOM):
        # A BOM opening the file is an encoding mark, not part of the first query: move that one
        # occurrence to the line without it (cheaper than numbering every line to find line 0).
        first = head.split(b"\n", 1)[0].decode("utf-8", errors="replace").removesuffix("\r")
        if len(first.encode()) >= HEAD_BYTES - 1:
            raise NeedsCarefulRead  # a first line longer than the head: let the reader do it
        # A file that is the BOM alone holds no line at all, as the careful reader reads it.
        after = [] if head == BOM else [first[1:]]
        moved = pl.DataFrame(
            {"raw": [first, *after], "count": [-1] + [1] * len(after)},
            schema={"raw": pl.String, "count": pl.Int64},
        )
        counted = (
            pl.concat([counted, moved])
            .group_by("raw")
            .agg(pl.col("count").sum())
            .filter(pl.col("count") > 0)
        )
    return counted


def _raise_bad_utf8(p: Path) -> None:
    """Find the first byte that is not UTF-8 in chunks (a log may not fit in memory)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    line, offset = 1, 0
    with p.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                # exc.start counts from the decoder's buffered bytes (the start of a character
                # cut by the previous chunk, never a newline) followed by this chunk
                at = exc.start - (len(exc.object) - len(chunk))
                line += chunk.count(b"\n", 0, max(at, 0))
                raise InputError(
                    p, f"bytes that are not UTF-8 (byte {offset + at})", line=line
                ) from None
            line += chunk.count(b"\n")
            offset += len(chunk)
        cut = len(decoder.getstate()[0])  # a character cut off by the end of the file
        if cut:
            raise InputError(p, f"bytes that are not UTF-8 (byte {offset - cut})", line=line)


def scan_table(p: Path, suffix: str) -> pl.LazyFrame:
    """``raw, count, _bad, _short`` for each row of a CSV, TSV or Parquet log, lazily: the
    count parsed, whether it is bad (not a whole number >= 1), whether the row was short (Polars
    pads a short CSV row with nulls: a null in the last column may be one). NeedsCarefulRead
    when the table cannot be read this way (the careful reader names why)."""
    try:
        if suffix in PARQUET_SUFFIXES:
            table = pl.scan_parquet(p, glob=False)
        else:
            sep = TEXT_FORMATS[suffix]
            table = pl.scan_csv(
                p,
                separator=sep,
                infer_schema=False,
                glob=False,
                quote_char='"' if sep == "," else None,
            )
        schema = table.collect_schema()
    except (pl.exceptions.PolarsError, OSError):
        raise NeedsCarefulRead from None
    if "query" not in schema or schema["query"] != pl.String:
        raise NeedsCarefulRead
    parsed, bad = count_exprs(schema.get("count"))
    last = schema.names()[-1]
    short = pl.col(last).is_null() if suffix in TEXT_FORMATS else pl.lit(False)
    return table.select(
        pl.col("query").alias("raw"),
        parsed.alias("count"),
        bad.alias("_bad"),
        short.alias("_short"),
    )


def _count_table(p: Path, suffix: str) -> pl.DataFrame:
    table = scan_table(p, suffix)
    try:
        counted = (
            table.group_by("raw")
            .agg(pl.col("count").sum(), pl.col("_bad").sum(), pl.col("_short").sum())
            .collect(engine="streaming")
        )
    except (pl.exceptions.PolarsError, OSError):
        raise NeedsCarefulRead from None
    if counted.height == 0 or counted["_bad"].sum() or counted["_short"].sum():
        raise NeedsCarefulRead
    return counted.select("raw", "count")


def count_exprs(dtype: pl.DataType | None) -> tuple[pl.Expr, pl.Expr]:
    """The count as Int64, and whether it is bad (not a whole number >= 1); as
    ``normalise.parse_counts`` reads it."""
    if dtype is None:
        return pl.lit(1, dtype=pl.Int64), pl.lit(False)
    values = pl.col("count")
    parsed: pl.Expr
    if dtype.is_float():
        whole = values.is_finite() & (values == values.floor())
        parsed = pl.when(whole).then(values.cast(pl.Int64, strict=False))
    elif dtype.is_integer():
        parsed = values.cast(pl.Int64, strict=False)
    elif dtype == pl.String:
        parsed = values.str.strip_chars().cast(pl.Int64, strict=False)
    else:
        raise NeedsCarefulRead
    return parsed, (parsed.is_null() | (parsed < 1)).fill_null(True)
