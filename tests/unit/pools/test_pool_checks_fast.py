"""The pool's yes/no checks take shortcuts (bench/load_pool.py, docs/pools.md): a string is known
not blank from how it starts, and the lists' flags are whole-column aggregates. Each shortcut must
say exactly what the plain check says: here both run on the same inputs, the plain one being the
regex over every string (``_blank``) and the per-row list checks (``_LIST_CHECKS``)."""

from __future__ import annotations

import sys

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from goldset_tui.io.pool_checks import (
    _FILLED_STARTS,
    _LIST_CHECKS,
    _LIST_FLAGS,
    _blank,
    _has_blank,
    _starts_in,
)

# Unicode White_Space (what the regex \s matches), the characters beside each range's edges, a
# few controls and letters: where a wrong range would call a blank string filled.
WHITESPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B)))
WHITESPACE += "\u2028\u2029\u202f\u205f\u3000"
EDGES = "!\x00\x08\x0e\x1f\x7f\x84\x86\x9f\xa1\u167f\u1681\u200b\u2027\u202a\u3001\U0001f600aZ"


def plain_has_blank(values: pl.Series) -> bool:
    return bool(values.to_frame().select(_blank(values.name).any()).item())


def test_no_string_that_starts_in_a_filled_range_is_blank() -> None:
    """Every character alone, and after a space or a line break: whatever the shortcut sets
    aside as filled, the regex finds a non-space character in."""
    chars = [chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c < 0xE000]
    values = pl.Series("v", chars + [" " + c for c in chars] + ["\n" + c for c in chars])
    blank = values.to_frame().select(_blank("v")).to_series()
    for ranges in _FILLED_STARTS:
        wrong = values.filter(_starts_in(values, ranges) & blank)
        assert wrong.is_empty(), wrong.head(5).to_list()


strings = st.one_of(
    st.none(),
    st.text(alphabet=st.sampled_from(WHITESPACE), max_size=4),
    st.text(alphabet=st.sampled_from(WHITESPACE + EDGES), max_size=6),
    st.text(max_size=6),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(strings, max_size=12))
def test_has_blank_says_what_the_regex_over_every_string_says(texts: list[str | None]) -> None:
    values = pl.Series("text", texts, dtype=pl.Utf8)
    assert _has_blank(values) == plain_has_blank(values)
    for one in texts:  # and string by string, so each answer is checked, not just the total
        single = pl.Series("text", [one], dtype=pl.Utf8)
        assert _has_blank(single) == plain_has_blank(single)


def test_has_blank_on_no_strings_and_on_nulls_alone() -> None:
    assert not _has_blank(pl.Series("v", [], dtype=pl.Utf8))
    assert _has_blank(pl.Series("v", [None, None], dtype=pl.Utf8))


lists = st.one_of(st.none(), st.lists(st.one_of(st.none(), st.sampled_from("abc")), max_size=4))
ranks = st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(-2, 4)), max_size=4))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(lists, ranks), min_size=1, max_size=8))
def test_list_flags_say_whether_a_row_fails_a_list_check(rows: list[tuple]) -> None:
    frame = pl.DataFrame(
        {"systems": [s for s, _ in rows], "ranks": [r for _, r in rows]},
        schema={"systems": pl.List(pl.Utf8), "ranks": pl.List(pl.Int64)},
    )
    flags = frame.select(pl.any_horizontal(_LIST_FLAGS).fill_null(False)).item()
    per_row = [frame.select(e.fill_null(False).any()).item() for _, e, _ in _LIST_CHECKS]
    assert flags == any(per_row)
    for flag, (_, expr, _) in zip(_LIST_FLAGS, _LIST_CHECKS, strict=True):
        one = frame.select(flag.fill_null(False))
        assert one.item() == frame.select(expr.fill_null(False).any()).item()
