"""A JSON lines log larger than memory, read in pieces for the spill files (``spill_tables``).

The careful reader (``normalise.read_log``) reads a JSON lines log whole: every line in memory.
Here the log is read in pieces of ``CHUNK_BYTES`` cut at newlines (``spill.chunks``: a BOM opening
the file dropped, as the careful reader drops it), each piece parsed by Polars and checked as the
careful reader checks the whole file (``io.tables.check_jsonl_frame``, the single-value and text
checks, the counts). Those checks go line by line, so a piece passes exactly when its lines would.

What a piece cannot see is the whole file's schema: Polars gives a field one type over the whole
file, and the careful reader reads the file with it. So every field must have the same type in
every piece (a field only null in a piece fits any type); and a ``count`` field present in one
piece must be present in all (the careful reader would find it null on the lines without it and
refuse them). Anything else, a bad line above all, raises ``NeedsCarefulRead``: the careful
reader, in memory, then names the line, as it always did. The labels are those of the in-memory
count byte for byte (tests/unit/sampling/test_sampling_spill_jsonl.py).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.io.tables import check_jsonl_frame
from goldset_tui.io.values import check_scalar, check_text
from goldset_tui.sampling.stream import NeedsCarefulRead, count_exprs

CHUNK_BYTES = 16 << 20  # log bytes parsed per piece


class JsonLines:
    """The two reads of one JSON lines log: the first (``checked``) checks every piece and learns
    each field's type over the whole file; the second (``read``) parses only the query and the
    count, with those types (three times faster than inferring them again, and nothing left to
    check: the first read checked the same bytes)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.types: dict[str, pl.DataType] | None = None  # query, count: once checked whole

    def checked(self) -> Iterator[pl.DataFrame]:
        """``raw, count`` per piece; NeedsCarefulRead where the careful reader must look (module
        docstring). Read it to its end before trusting what it gave: the last piece may still
        send the log to the careful reader."""
        from goldset_tui.sampling.spill import chunks

        types: dict[str, pl.DataType] = {}
        with_count: set[bool] = set()
        rows = 0
        for chunk in chunks(self.path, CHUNK_BYTES):
            if not chunk.strip():
                continue  # blank lines only: no rows (Polars refuses a piece without any)
            frame = _parsed(self.path, chunk)
            for name, dtype in frame.schema.items():
                if dtype == pl.Null:
                    continue
                if types.setdefault(name, dtype) != dtype:
                    raise NeedsCarefulRead  # another type than in an earlier piece
            with_count.add("count" in frame.columns)
            if len(with_count) > 1:
                raise NeedsCarefulRead  # a count on some lines, none on others
            rows += frame.height
            yield _raw_counts(frame)
        if rows == 0 or "query" not in types:
            raise NeedsCarefulRead  # no rows, or no query anywhere: the careful reader says which
        self.types = {name: types[name] for name in ("query", "count") if name in types}

    def read(self) -> Iterator[pl.DataFrame]:
        """``raw, count`` per piece: ``checked`` the first time, then with the types it learnt."""
        from goldset_tui.sampling.spill import chunks

        if self.types is None:
            yield from self.checked()
            return
        for chunk in chunks(self.path, CHUNK_BYTES):
            if not chunk.strip():
                continue
            try:
                frame = pl.read_ndjson(io.BytesIO(chunk), schema=self.types)
            except (pl.exceptions.PolarsError, OSError):
                raise NeedsCarefulRead from None  # changed since it was checked
            yield _raw_counts(frame)


def _parsed(path: Path, chunk: bytes) -> pl.DataFrame:
    try:
        frame = pl.read_ndjson(io.BytesIO(chunk), infer_schema_length=None)
        check_jsonl_frame(path, chunk, ("query",), frame)
        check_scalar(frame, path, "jsonl", ("query", "count"))
        check_text(frame, path, "jsonl", ("query",))
    except (pl.exceptions.PolarsError, OSError, ValueError, InputError):
        # The line numbers would count from the piece: the careful reader names the right one.
        raise NeedsCarefulRead from None
    return frame


def _raw_counts(frame: pl.DataFrame) -> pl.DataFrame:
    """``raw, count`` of one piece: the query as text (a whole number read as its digits, as the
    careful reader casts it; a missing one null, a blank query), the count parsed as
    ``normalise.parse_counts`` parses it."""
    query = "query" in frame.columns
    raw = pl.col("query").cast(pl.String) if query else pl.lit(None, dtype=pl.String)
    parsed, bad = count_exprs(frame.schema.get("count"))
    # with_columns, not select: a literal (no query, no count) is then one value per line.
    out = frame.with_columns(raw.alias("_raw"), parsed.alias("_count"), bad.alias("_bad"))
    if out.get_column("_bad").any():
        raise NeedsCarefulRead
    return out.select(pl.col("_raw").alias("raw"), pl.col("_count").alias("count"))
