"""Types checked, not coerced: the value checks every table reader shares.

Polars reads what it can and casts quietly: a JSON id ``{"x": 1}`` would become the text
``"{1}"``, ``1.5`` the id ``"1.5"``, a lone surrogate ``"\\ud800"`` a NUL character, a rank
``1.7`` the rank 1. Each of those changes a value without a word, so the readers refuse them
instead, naming the file, the line (or Parquet row) and the column. An integer id may be read as
text (``7`` is the id ``"7"``): nothing is lost.

The checks on a frame cost one cheap pass over a column's dtype; the raw-byte scans of JSON lines
run one regular expression over the file and parse only the lines it points at.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.scalar import as_int

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _where(fmt: str, index: int) -> dict[str, int]:
    # 0-based data row -> the line (text formats) or row (Parquet) the user looks for.
    if fmt in ("csv", "tsv"):
        return {"line": index + 2}
    if fmt == "jsonl":
        return {"line": index + 1}
    return {"row": index + 1}


def _first_value(series: pl.Series) -> int:
    return as_int(series.is_not_null().arg_max() or 0)


def _kind(dtype: pl.DataType) -> str | None:
    """What is wrong with a dtype where one plain value belongs, or None when it is plain."""
    if isinstance(dtype, pl.List | pl.Array):
        return "lists"
    if isinstance(dtype, pl.Struct):
        return "objects"
    if dtype == pl.Binary:
        return "binary values"
    if dtype == pl.Object:
        return "Python objects"
    return None


def check_scalar(df: pl.DataFrame, path: Path, fmt: str, columns: Iterable[str]) -> None:
    """Each of ``columns`` present holds single values: no lists, objects or binary."""
    for name in dict.fromkeys(columns):
        if name not in df.columns:
            continue
        kind = _kind(df.schema[name])
        if kind is not None:
            column = df.get_column(name)
            raise InputError(
                path,
                f"holds {kind} where a single value belongs",
                column=name,
                **_where(fmt, _first_value(column)),
            )


def check_text(df: pl.DataFrame, path: Path, fmt: str, columns: Iterable[str]) -> None:
    """Each of ``columns`` present is text, or whole numbers read as text; never decimals, yes/no
    values or nested ones (their text would not be the value written)."""
    check_scalar(df, path, fmt, columns)
    for name in dict.fromkeys(columns):
        if name not in df.columns:
            continue
        dtype = df.schema[name]
        if dtype == pl.String or dtype == pl.Null or dtype.is_integer():
            continue
        column = df.get_column(name)
        i = _first_value(column)
        raise InputError(
            path,
            f"expected text (or a whole number), found {_describe(dtype)} {column[i]!r}",
            column=name,
            **_where(fmt, i),
        )


def _describe(dtype: pl.DataType) -> str:
    if dtype.is_float():
        return "the decimal number"
    if dtype == pl.Boolean:
        return "the true/false value"
    return f"a {dtype} value"


# --- JSON lines, on the raw bytes ---------------------------------------------------------------
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONG_DIGITS = re.compile(rb"\d{19}")
# A key's value that is neither a string, a whole number nor null: it starts with something else,
# or is a number with a fraction or exponent. Only such (rare) hits are parsed, so good files pay
# one C-level scan per file.
_NOT_TEXT = rb'"\s*:\s*(?:[^"\s\-\dn]|-?\d+\s*[.eE]|n(?!ull))'


def _key_pattern(names: Iterable[str]) -> re.Pattern[bytes] | None:
    keys = [re.escape(json.dumps(name).encode()[1:-1]) for name in dict.fromkeys(names)]
    if not keys:
        return None
    return re.compile(rb'"(' + b"|".join(keys) + rb")" + _NOT_TEXT)


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _line_at(data: bytes, offset: int) -> bytes:
    start = data.rfind(b"\n", 0, offset) + 1
    end = data.find(b"\n", offset)
    return data[start : end if end >= 0 else len(data)]


def may_hold_huge_ints(frame: pl.DataFrame | None) -> bool:
    """Whether Polars met an integer beyond 64 bits: it reads one as Int128 or UInt64, or as a
    float in a column of numbers (1e+23: a value changed). Only then are the bytes scanned."""
    if frame is None:
        return True
    for name, dtype in frame.schema.items():
        if any(wide in str(dtype) for wide in ("Int128", "UInt64")):
            return True
        if dtype.is_float() and frame.height:
            biggest = frame.get_column(name).abs().max()
            if isinstance(biggest, float) and biggest >= 2.0**63 and biggest != float("inf"):
                return True
    return False


def check_jsonl_bytes(
    path: Path, data: bytes, text_columns: Iterable[str], frame: pl.DataFrame | None = None
) -> None:
    """What a JSON-lines reader would silently change: a lone UTF-16 surrogate, an integer beyond
    64 bits, and a value of a ``text_columns`` key that is neither a string nor a whole number.
    ``frame`` is what Polars read from ``data``, when it could (it spares a scan for big numbers).
    """
    surrogates = b"\\ud" in data or b"\\uD" in data  # a fast search before the slower regex
    for match in _SURROGATE.finditer(data) if surrogates else ():
        line = _line_at(data, match.start())
        try:
            json.dumps(loads_json(line), ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(
                path,
                "a lone UTF-16 surrogate (\\ud800-\\udfff) in a string: not a character",
                line=_line_of(data, match.start()),
            ) from None
        except ValueError:
            pass  # a bad line: the JSON parser names it
    for match in _LONG_DIGITS.finditer(data) if may_hold_huge_ints(frame) else ():
        line = _line_at(data, match.start())
        try:
            value = loads_json(line)
        except ValueError:
            continue
        if _has_huge_int(value):
            raise InputError(
                path,
                "a whole number beyond 64 bits (at most 9223372036854775807)",
                line=_line_of(data, match.start()),
            )
    pattern = _key_pattern(text_columns)
    if pattern is None:
        return
    for match in pattern.finditer(data):
        name = json.loads(b'"' + match.group(1) + b'"')
        line = _line_at(data, match.start())
        try:
            value = loads_json(line)
        except ValueError:
            continue  # not JSON at all: the parser's error names the line
        if not isinstance(value, dict) or name not in value:
            continue  # the key was inside a string or a nested object
        found = value[name]
        if found is None or isinstance(found, str):
            continue
        if isinstance(found, int) and not isinstance(found, bool):
            continue  # an integer id reads as its digits
        raise InputError(
            path,
            f"expected text (or a whole number), found {_json_kind(found)} {_short(found)}",
            line=_line_of(data, match.start()),
            column=name,
        )


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "the true/false value"
    if isinstance(value, float):
        return "the decimal number"
    if isinstance(value, dict):
        return "the object"
    if isinstance(value, list):
        return "the list"
    return "the value"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 40 else text[:37] + "..."


def _has_huge_int(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return not INT64_MIN <= value <= INT64_MAX
    if isinstance(value, dict):
        return any(_has_huge_int(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_huge_int(v) for v in value)
    return False


# Python's JSON parser (and tomllib) recurse once per level of nesting, so a line of 100,000 "["
# ends in a RecursionError, not a ValueError: a reader catching bad JSON would let it through as
# a traceback. No goldset file nests anywhere near this deep; deeper than this is only ever
# named in the message (the parse itself stops where Python's recursion limit is reached).
DEEPEST = 100


def deep_at(text: str, start: int = 0) -> int:
    """Where, from ``start``, brackets first nest more than ``DEEPEST`` levels (strings skipped),
    or ``start`` when they never do. Only called on the error path."""
    depth, quoted, escaped = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if quoted:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch in "[{":
            depth += 1
            if depth > DEEPEST:
                return i
        elif ch in "]}":
            depth -= 1
    return start


def too_deep(doc: str, start: int = 0) -> json.JSONDecodeError:
    """The error for a value nested too deeply to parse, pointing where it passes ``DEEPEST``."""
    return json.JSONDecodeError(f"nested more than {DEEPEST} levels deep", doc, deep_at(doc, start))


def loads_json(text: str | bytes, **kwargs: Any) -> Any:
    """``json.loads``, with a value nested too deeply for Python's parser refused as a
    ``json.JSONDecodeError`` (a ``ValueError``) like any other bad JSON, never a RecursionError:
    every reader's existing refusal then names the file and line."""
    try:
        return json.loads(text, **kwargs)
    except RecursionError:
        doc = text if isinstance(text, str) else text.decode("utf-8", errors="replace")
        raise too_deep(doc) from None


def reject_constant(name: str) -> float:
    """``json.loads(parse_constant=...)``: NaN and Infinity are not JSON, whatever Python accepts."""
    raise ValueError(f"{name} is not a JSON value (JSON has no NaN or Infinity)")
