"""Read a tabular file (Parquet, CSV, TSV, JSONL) into Polars, or explain in one line why not.

This is the shared front door for every table goldset reads: pools, corpora, strata, traffic,
labels. Polars does the reading (fast path); when Polars refuses, or when a check finds a problem,
we go back to the raw bytes only then to name the line, so good input pays nothing for the error
reporting.

Locations are 1-based: ``line`` for text formats (the header is line 1 of a CSV), ``row`` for
Parquet.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.io.sources import check_file as check_file  # re-exported: every table reader
from goldset_tui.io.values import (
    check_jsonl_bytes,
    check_scalar,
    check_text,
    loads_json,
    reject_constant,
)
from goldset_tui.scalar import as_int

TEXT_FORMATS = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
JSONL_SUFFIXES = {".jsonl", ".ndjson"}
PARQUET_SUFFIXES = {".parquet", ".pq"}
SUPPORTED = sorted(set(TEXT_FORMATS) | JSONL_SUFFIXES | PARQUET_SUFFIXES)


# Polars expands `*`, `?` and `[...]` in a path as a glob: `pool[2024].csv` would match nothing
# and `pool*.csv` several files. Paths here are always literal: pass glob=False where Polars has
# it, and an open file where it has not (the JSON lines readers).
GLOB_CHARS = frozenset("*?[]")


def has_glob_chars(path: str | Path) -> bool:
    return any(c in GLOB_CHARS for c in str(path))


def table_format(path: Path) -> str:
    """``csv``, ``tsv``, ``jsonl`` or ``parquet``, chosen by extension."""
    suffix = path.suffix.lower()
    if suffix in PARQUET_SUFFIXES:
        return "parquet"
    if suffix in JSONL_SUFFIXES:
        return "jsonl"
    if suffix in TEXT_FORMATS:
        return "tsv" if TEXT_FORMATS[suffix] == "\t" else "csv"
    raise InputError(
        path,
        f"unknown file type {suffix or '(no extension)'!r}; expected one of {', '.join(SUPPORTED)}",
    )


def first_bad_utf8(data: bytes) -> tuple[int, int] | None:
    """(line, byte offset) of the first byte that is not UTF-8, or None."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return data.count(b"\n", 0, exc.start) + 1, exc.start
    return None


def raise_if_not_utf8(path: Path, data: bytes) -> None:
    bad = first_bad_utf8(data)
    if bad is not None:
        line, offset = bad
        hint = "; the file is UTF-16: save it as UTF-8" if data[:2] in _UTF16_BOMS else ""
        raise InputError(path, f"bytes that are not UTF-8 (byte {offset}){hint}", line=line)


_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def raise_if_not_text(path: Path, data: bytes) -> None:
    """Not UTF-8, or a NUL byte: UTF-16 without its byte order mark is valid UTF-8, a NUL
    before every ASCII character, which a CSV reader splits into rows of the wrong width."""
    raise_if_not_utf8(path, data)
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputError(
            path,
            f"a NUL byte (byte {nul}): not UTF-8 text (UTF-16? save it as UTF-8)",
            line=data.count(b"\n", 0, nul) + 1,
        )


def location(fmt: str, row_index: int, path: Path | None = None) -> dict[str, int]:
    """Keyword arguments for InputError pointing at the 0-based data row ``row_index``.

    For CSV/TSV with ``path``, the line is the one a text editor shows even when quoted fields
    hold newlines (the file is scanned again, only on this error path).
    """
    if fmt in ("csv", "tsv"):
        starts = row_lines(path, fmt) if path is not None else None
        if starts is not None and row_index < len(starts):
            return {"line": starts[row_index]}
        return {"line": row_index + 2}
    if fmt == "jsonl":
        return {"line": row_index + 1}
    return {"row": row_index + 1}


def location_text(fmt: str, row_index: int, path: Path | None = None) -> str:
    """``line N`` or ``row N``: where ``location`` points, for a message ("first at line 3")."""
    ((kind, number),) = location(fmt, row_index, path).items()
    return f"{kind} {number}"


def row_lines(path: Path, fmt: str) -> list[int] | None:
    """The physical line each data row of a CSV starts on, or None when every row is one line
    (no quoted newline), in which case a row's line is its index plus 2."""
    data = path.read_bytes()
    if fmt != "csv" or b'"' not in data:
        return None  # TSV is read without quoting: rows are lines
    reader = csv.reader(io.StringIO(data.decode("utf-8", errors="replace"), newline=""))
    starts: list[int] = []
    previous = 0
    try:
        for number, row in enumerate(reader):
            if number and row:
                starts.append(previous + 1)
            previous = reader.line_num
    except csv.Error:
        pass
    return starts


def read_table(
    path: str | Path,
    *,
    required: Sequence[str] = (),
    non_empty: Sequence[str] = (),
    string_columns: Iterable[str] = (),
    scalar: Iterable[str] = (),
    allow_empty: bool = False,
) -> pl.DataFrame:
    """Read ``path`` by extension and validate it.

    ``required`` columns must exist; ``non_empty`` columns must have no null or empty value
    (reported with the first offending line). ``string_columns`` are cast to Utf8 so that ids
    like ``007`` keep their zeros in CSV (all CSV/TSV columns are read as text; cast later); a
    decimal, yes/no or nested value there is refused rather than turned into text (a whole number
    is read as its digits). ``required``, ``non_empty`` and ``scalar`` columns must hold single
    values, not lists, objects or binary (``goldset_tui.io.values``).
    """
    p = check_file(path)
    fmt = table_format(p)
    string_columns = tuple(string_columns)
    if fmt == "parquet":
        df = _read_parquet(p)
    elif fmt == "jsonl":
        df = _read_jsonl(p, string_columns)
    else:
        df = _read_delimited(p, TEXT_FORMATS[p.suffix.lower()])
    if df.height == 0 and not allow_empty:
        raise InputError(p, "has a header but no rows" if df.width else "has no rows")
    missing = [c for c in required if c not in df.columns]
    if missing:
        if fmt in ("csv", "tsv") and any("\x00" in c or "\ufffd" in c for c in df.columns):
            # UTF-16: its header reads as NUL-split names; a byte that is not UTF-8 reads as
            # U+FFFD: either way the header's bytes are the problem, not a missing column.
            raise_if_not_text(p, p.read_bytes())
        found = ", ".join(df.columns) or "none"
        raise InputError(
            p, f"missing required column {missing[0]!r} (found columns: {found})", column=missing[0]
        )
    check_scalar(df, p, fmt, (*required, *non_empty, *scalar))
    check_text(df, p, fmt, string_columns)
    casts = [
        pl.col(c).cast(pl.Utf8)
        for c in string_columns
        if c in df.columns and df.schema[c] != pl.Utf8
    ]
    if casts:
        try:
            df = df.with_columns(casts)
        except pl.exceptions.PolarsError as exc:  # nested values, say
            raise InputError(p, f"a column could not be read as text: {exc}") from None
    for col in non_empty:
        check_non_empty(df, col, p, fmt)
    return df


def check_non_empty(df: pl.DataFrame, col: str, path: Path, fmt: str) -> None:
    """Raise on the first null or blank value of ``col``."""
    values = df.get_column(col)
    bad = values.is_null()
    if values.dtype == pl.Utf8:
        bad = bad | (values.str.strip_chars() == "")
    if bad.any():
        first = as_int(bad.arg_max())  # first True
        count = int(bad.sum())
        more = f" ({count} rows in all)" if count > 1 else ""
        raise InputError(path, f"empty or missing value{more}", column=col, **location(fmt, first))


def _read_parquet(p: Path) -> pl.DataFrame:
    try:
        return pl.read_parquet(p, glob=False)
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise InputError(p, f"not a readable Parquet file ({_short(exc)})") from None


UTF8_BOM = b"\xef\xbb\xbf"


def _raise_repeated_key(p: Path, data: bytes, frame: pl.DataFrame) -> None:
    """A key given twice in one object: Polars keeps the first value, Python's json the last.
    Only when a key occurs more often than the rows that hold it are lines parsed again."""
    for name in frame.columns:
        key = json.dumps(name).encode()
        if data.count(key) <= frame.height - frame.get_column(name).null_count():
            continue
        for number, raw in enumerate(data.split(b"\n"), start=1):
            if raw.count(key) < 2:
                continue
            try:
                pairs = loads_json(raw, object_pairs_hook=list)
            except ValueError:
                continue
            keys = (
                [kv[0] for kv in pairs if isinstance(kv, tuple)] if isinstance(pairs, list) else []
            )
            if keys.count(name) > 1:
                raise InputError(
                    p,
                    f"key {name!r} is given twice in one object (JSON readers disagree on which "
                    "value counts)",
                    line=number,
                    column=name,
                )


def check_jsonl_frame(
    p: Path, data: bytes, text_columns: Sequence[str], frame: pl.DataFrame
) -> None:
    """What Polars read from JSON lines ``data`` without a word but changed: a lone surrogate, a
    number beyond 64 bits, a ``text_columns`` value that is not text, a key given twice. Line by
    line, so a piece of a file cut at newlines is checked as the whole file would be (the line
    numbers then count from the piece's start)."""
    check_jsonl_bytes(p, data, text_columns, frame)
    _raise_repeated_key(p, data, frame)


def _read_jsonl(p: Path, text_columns: Sequence[str] = ()) -> pl.DataFrame:
    # A BOM is an encoding mark, not JSON: Polars' JSON reader refuses it (its CSV reader skips
    # it), so it is dropped before anything reads the bytes; it sits on line 1, so lines still count.
    data = p.read_bytes().removeprefix(UTF8_BOM)
    try:
        # From the bytes already read (never a glob pattern); checked first for what Polars
        # would change without a word (a lone surrogate, a struct id: goldset_tui.io.values).
        frame = pl.read_ndjson(io.BytesIO(data), infer_schema_length=None)
        check_jsonl_frame(p, data, text_columns, frame)
        return frame
    except (pl.exceptions.PolarsError, OSError, ValueError) as exc:
        # Polars says what but not where: find the line ourselves.
        raise_if_not_utf8(p, data)
        check_jsonl_bytes(p, data, ())
        rows: list[tuple[int, dict[str, object]]] = []
        for number, raw in enumerate(data.decode("utf-8").split("\n"), start=1):
            if not raw.strip():
                continue
            try:
                value = loads_json(raw, parse_constant=reject_constant)
            except json.JSONDecodeError as jexc:
                raise InputError(
                    p, f"JSON does not parse: {jexc.msg} at column {jexc.colno}", line=number
                ) from None
            except ValueError as vexc:  # NaN, Infinity
                raise InputError(p, str(vexc), line=number) from None
            if not isinstance(value, dict):
                raise InputError(
                    p, f"expected a JSON object, found {type(value).__name__}", line=number
                ) from None
            rows.append((number, value))
        check_kinds(p, rows)
        raise InputError(p, f"could not be read as JSON lines ({_short(exc)})") from None


def _kind(value: object) -> str | None:
    """The kind of a JSON value as one column can hold it: text absorbs every other kind (Polars
    reads such a column as text), integers and decimals are both numbers, null fits anywhere."""
    if value is None or isinstance(value, str):
        return None
    if isinstance(value, bool):  # before int: bool is an int in Python
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    return "an object" if isinstance(value, dict) else "a list"


def check_kinds(p: Path, rows: list[tuple[int, dict[str, object]]]) -> None:
    """Raise on the first line where a field holds another kind of value than on an earlier line
    (``{"grade": 1}`` then ``{"grade": true}``): Polars refuses the column without saying where.
    A field that is text on any line is read as text and fits every kind."""
    text = {field for _, row in rows for field, value in row.items() if isinstance(value, str)}
    seen: dict[str, tuple[str, int]] = {}
    for number, row in rows:
        for field, value in row.items():
            kind = None if field in text else _kind(value)
            if kind is None:
                continue
            first = seen.setdefault(field, (kind, number))
            if first[0] != kind:
                message = f"{kind} here but {first[0]} on line {first[1]}: one column, one kind"
                raise InputError(p, message, line=number, column=field)


def _read_delimited(p: Path, sep: str) -> pl.DataFrame:
    try:
        df = pl.read_csv(
            p,
            separator=sep,
            infer_schema=False,  # everything as text: ids keep leading zeros, cast later
            glob=False,
            quote_char='"' if sep == "," else None,
        )
    except (pl.exceptions.PolarsError, OSError) as exc:
        data = p.read_bytes()
        raise_if_not_utf8(p, data)
        _raise_ragged(p, data, sep)
        raise InputError(
            p, f"could not be read as {'TSV' if sep == chr(9) else 'CSV'} ({_short(exc)})"
        ) from None
    for name in df.columns:
        # Polars renames a repeated header name (grade, grade_duplicated_0): one would be lost.
        twice = re.fullmatch(r"(.*)_duplicated_\d+", name)
        if twice and twice.group(1) in df.columns:
            raise InputError(
                p,
                f"column {twice.group(1)!r} appears twice in the header",
                line=1,
                column=twice.group(1),
            )
    # Polars pads short rows with nulls instead of failing. A null in the last column is either
    # a short row or an empty last field; only then do we pay for a scan that tells them apart.
    if df.height and df.width and df.get_column(df.columns[-1]).null_count() > 0:
        _raise_ragged(p, p.read_bytes(), sep)
    return df


def _raise_ragged(p: Path, data: bytes, sep: str) -> None:
    raise_if_not_text(p, data)  # a UTF-16 file reads as ragged rows: say what it is instead
    text = data.decode("utf-8")
    if sep == ",":
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
    else:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep, quoting=csv.QUOTE_NONE)
    name = "CSV" if sep == "," else "TSV"
    width = None
    start = 1  # the line a row starts on (a quoted field may run over several lines)
    try:
        for row in reader:
            row_start, start = start, reader.line_num + 1
            if width is None:
                width = len(row)
                continue
            if not row:
                continue
            if len(row) != width:
                raise InputError(
                    p, f"ragged row: {len(row)} fields where the header has {width}", line=row_start
                )
    except csv.Error as exc:
        raise InputError(p, f"malformed {name}: {exc}", line=start) from None
    if sep == "," and text.count('"') % 2:
        # The reader swallowed the rest of the file into the open field: it began on row_start.
        raise InputError(p, 'a quoted field is never closed (a " without its pair)', line=row_start)


def _short(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:160]
