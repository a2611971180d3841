"""The character classes of the query-shape rules, as explicit code-point ranges for SQL engines.

The rules (``rules.py``) name Unicode sets: letters (``\\p{L}``), numbers (``\\p{N}``), decimal
digits (``\\d``), the Uppercase and Lowercase properties, titlecase letters and White_Space.
Engines disagree on those names: RE2 (DuckDB, BigQuery) has no ``\\p{Uppercase}`` and its ``\\s``
is ASCII; Java's ``\\s`` is ASCII too unless asked; and each engine carries its own version of
Unicode's tables. So the SQL does not name the sets: it lists their code points, taken from
Polars' own tables by testing every code point with the local regex. Every engine then tests the
very sets the local run tests, whatever its Unicode version.

Each set is computed once per process (a second or two: 1.1 million code points per set).
"""

from __future__ import annotations

import functools

import polars as pl

from goldset_tui.sampling.normalise import WHITESPACE

SURROGATES = range(0xD800, 0xE000)

# The local patterns the SQL reproduces (rules.py and normalise.py spell them the same way).
SETS = {
    "space": WHITESPACE,
    "word": r"[\p{L}\p{N}_]",
    "digit": r"\d",
    "letter": r"\p{L}",
    "upper": r"[\p{Uppercase}\p{Lt}]",
    "lower": r"\p{Lowercase}",
    "cased": r"[\p{Uppercase}\p{Lowercase}\p{Lt}]",
}


@functools.cache
def _code_points() -> pl.Series:
    return pl.Series("c", [chr(c) for c in range(0x110000) if c not in SURROGATES], dtype=pl.String)


@functools.cache
def ranges(name: str) -> tuple[tuple[int, int], ...]:
    """The code points Polars' regex puts in set ``name``, as (first, last) ranges."""
    points = _code_points()
    hits = points.filter(points.str.contains(f"^(?:{SETS[name]})$")).to_list()
    out: list[list[int]] = []
    for char in hits:
        c = ord(char)
        if out and out[-1][1] == c - 1:
            out[-1][1] = c
        else:
            out.append([c, c])
    return tuple((a, b) for a, b in out)


def _point(c: int) -> str:
    return f"\\x{{{c:X}}}"


def regex_class(name: str, *, negate: bool = False, extra: str = "") -> str:
    """``[...]`` listing set ``name`` (and ``extra``, already escaped), in the syntax RE2, Java
    and Rust share: ``\\x{HHHH}`` escapes only, so no character needs quoting in any dialect."""
    body = "".join(_point(a) if a == b else f"{_point(a)}-{_point(b)}" for a, b in ranges(name))
    return f"[{'^' if negate else ''}{body}{extra}]"
