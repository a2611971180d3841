"""Hostile files for the reader fuzzer: hypothesis strategies that write a file in a
reader's format from rows of hostile values, then maybe damage its bytes.

Not collected by pytest; imported by test_fuzz_readers.py.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from typing import Any

import polars as pl
from hypothesis import strategies as st

# Characters that break things: controls, ESC, NUL, bidi overrides, separators, quotes, a BOM.
NASTY = "\x00\x1b\x07\r\n\t\u202e\u2066\ufeff\"',;|\\ \u00e9\u4e2d\U0001f600"
TEXT = st.text(alphabet=st.sampled_from(NASTY) | st.characters(max_codepoint=0x2FF), max_size=12)

VALUES: st.SearchStrategy[Any] = st.one_of(
    TEXT,
    st.sampled_from(["q1", "q2", "d1", "d2", "0", "1", "3", "", " ", "007", "1.5", "NaN"]),
    st.integers(min_value=-5, max_value=5),
    st.integers(min_value=2**62, max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.lists(st.one_of(TEXT, st.integers(-2, 5), st.floats()), max_size=3),
    st.lists(st.lists(st.integers(0, 3), max_size=2), max_size=2),
    st.dictionaries(TEXT, st.integers(0, 3), max_size=2),
    st.just("x" * 70_000),  # a huge field
)


@dataclass
class Written:
    """What was written: the bytes, and the rows when they came from rows (for value oracles)."""

    data: bytes
    rows: list[dict[str, Any]] | None


def rows_for(columns: list[str]) -> st.SearchStrategy[list[dict[str, Any]]]:
    keys = st.sampled_from([*columns, "extra"])
    # Mostly the reader's columns with plausible values, sometimes hostile ones.
    plausible = st.sampled_from(["q1", "q2", "d1", "d2", "1", "2", "x"])
    value = st.one_of(plausible, plausible, VALUES)
    full = st.fixed_dictionaries({c: value for c in columns})
    partial = st.dictionaries(keys, value, max_size=len(columns) + 1)
    return st.lists(st.one_of(full, full, partial), min_size=0, max_size=6)


def _json_line(row: dict[str, Any]) -> str:
    return json.dumps(row, allow_nan=True, ensure_ascii=False)


def encode(fmt: str, rows: list[dict[str, Any]], columns: list[str]) -> bytes:
    if fmt == "jsonl":
        return "".join(_json_line(r) + "\n" for r in rows).encode("utf-8", "surrogatepass")
    if fmt in ("csv", "tsv"):
        out = io.StringIO()
        if fmt == "csv":
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(columns)
            for r in rows:
                writer.writerow([_cell(r.get(c)) for c in columns])
        else:
            out.write("\t".join(columns) + "\n")
            for r in rows:
                out.write("\t".join(_cell(r.get(c)) for c in columns) + "\n")
        return out.getvalue().encode("utf-8", "surrogatepass")
    if fmt == "parquet":
        return _parquet(rows, columns)
    raise AssertionError(fmt)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | dict):
        return json.dumps(value, allow_nan=True)
    return str(value)


def _parquet(rows: list[dict[str, Any]], columns: list[str]) -> bytes:
    # One type per column, as Parquet demands: the column takes the type of its first value and
    # values of another type are written as text (or left out) rather than failing here.
    data: dict[str, list[Any]] = {}
    for c in columns:
        values = [r.get(c) for r in rows]
        first = next((v for v in values if v is not None), None)
        if isinstance(first, float) or (isinstance(first, int) and not isinstance(first, bool)):
            kind: type = float if isinstance(first, float) else int
            values = [
                v if isinstance(v, kind) and not isinstance(v, bool) and abs(v) < 2**62 else None
                for v in values
            ]
        elif isinstance(first, list | dict | bool):
            values = [v if type(v) is type(first) else None for v in values]
        else:
            values = [None if v is None else _cell(v) for v in values]
        data[c] = values
    buffer = io.BytesIO()
    try:
        pl.DataFrame(data, strict=False).write_parquet(buffer)
    except Exception:  # a mix Polars cannot build: write the text form instead
        pl.DataFrame(
            {c: [None if v is None else _cell(v) for v in vs] for c, vs in data.items()}
        ).write_parquet(buffer)
    return buffer.getvalue()


@st.composite
def damaged(draw: st.DrawFn, data: bytes) -> bytes:
    """The bytes as written, or with a BOM, another encoding, a cut, garbage spliced in, or a line
    opening with 100,000 "[" (a RecursionError in Python's parsers)."""
    how = draw(
        st.sampled_from(
            [
                "as is",
                "as is",
                "as is",
                "bom",
                "utf16",
                "latin1",
                "cut",
                "splice",
                "surrogate",
                "deep",
            ]
        )
    )
    if how == "bom":
        return b"\xef\xbb\xbf" + data
    if how == "utf16":
        return data.decode("utf-8", "replace").encode("utf-16")
    if how == "latin1":
        return data.decode("utf-8", "replace").encode("latin-1", "replace")
    if how == "cut" and data:
        return data[: draw(st.integers(0, len(data) - 1))]
    if how == "splice":
        at = draw(st.integers(0, len(data)))
        return data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    if how == "deep":
        # Nesting deeper than Python's JSON and TOML parsers recurse, at the start of a line.
        starts = [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A]
        at = draw(st.sampled_from(starts))
        return data[:at] + b"[" * 100_000 + data[at:]
    if how == "surrogate" and b'"q1"' in data:
        return data.replace(b'"q1"', b'"\\ud800"', 1)
    return data


@st.composite
def table_file(draw: st.DrawFn, fmt: str, columns: list[str]) -> Written:
    if draw(st.integers(0, 9)) == 0:
        return Written(draw(st.binary(max_size=200)), None)
    rows = draw(rows_for(columns))
    data = encode(fmt, rows, columns)
    broken = draw(damaged(data)) if fmt != "parquet" else data
    return Written(broken, rows if broken == data else None)


@st.composite
def trec_file(draw: st.DrawFn, fields: int) -> Written:
    token = st.one_of(
        st.sampled_from(["q1", "d1", "Q0", "0", "1", "2", "1.5", "-3", "nan", "inf", "tag"]), TEXT
    )
    lines = draw(st.lists(st.lists(token, min_size=fields - 2, max_size=fields + 1), max_size=6))
    data = "".join(" ".join(line) + "\n" for line in lines).encode("utf-8", "surrogatepass")
    return Written(draw(damaged(data)), None)


def is_finite_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63


def as_id(value: Any) -> str | None:
    """How an id value may legitimately be read: text as it is, a whole number as its digits."""
    if isinstance(value, str):
        return value
    if is_finite_int(value):
        return str(value)
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return None  # never a legitimate id: reading it must fail
    return None
