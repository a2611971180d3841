"""The checks a pool passes whichever its shape: values present, no pair twice, one query text
and stratum per query, systems and ranks that agree, every candidate with a text (from the pool or
the corpus). Each raises :class:`InputError` at the first offending line or row."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.io.corpus import read_corpus
from goldset_tui.io.pool_schema import _SHOW_IDS, _WHERE, _short_repr
from goldset_tui.model import POOL_KEY
from goldset_tui.scalar import as_int


def _blank(col: str | pl.Expr) -> pl.Expr:
    """Null, empty or only whitespace. A search for one non-space character stops at the first
    one, and allocates nothing (stripping a million texts would copy them all)."""
    expr = pl.col(col) if isinstance(col, str) else col
    return expr.is_null() | ~expr.str.contains(r"\S")


# Where a string starts when it cannot be blank, as ranges [low, high) of its first characters
# (or first two): first printable ASCII (up to NEL, U+0085); then U+00A1 to OGHAM SPACE MARK
# (U+1680), U+3001 (after the ideographic space) on, or a space or a line break followed by
# printable ASCII (a text cut out of a longer one). None of these characters is whitespace
# (Unicode White_Space, what the regex ``\S`` looks past); UTF-8 compares in code point order,
# and a comparison with a constant reads a string's first bytes only.
_FILLED_STARTS = (
    (("!", "\x85"),),
    (("\xa1", "\u1680"), ("\u3001", None), (" !", " \x85"), ("\n!", "\n\x85")),
)


def _starts_in(values: pl.Series, ranges: tuple[tuple[str, str | None], ...]) -> pl.Series:
    """True where the string starts in one of ``ranges``; False for a null."""
    found = pl.repeat(False, values.len(), eager=True)
    for low, high in ranges:
        found |= (values >= low) if high is None else (values >= low) & (values < high)
    return found.fill_null(False)


def _has_blank(values: pl.Series) -> bool:
    """``_blank`` anywhere in ``values``, at a fraction of its cost: the strings known not blank
    from how they start (a few comparisons, settling nearly all of them) are set aside in two
    steps; the regex runs on the few left (null, empty, whitespace and then more of it, rare
    characters)."""
    if values.dtype != pl.Utf8:
        return bool(values.to_frame().select(_blank(values.name).any()).item())
    for ranges in _FILLED_STARTS:
        if values.is_empty():
            return False
        values = values.filter(~_starts_in(values, ranges))
    return bool((values.is_null() | ~values.str.contains(r"\S")).any())


def _validate(p: Path, rows: pl.DataFrame, kind: str) -> None:
    """Every check at once as cheap yes/no aggregates (one pass, in parallel); only a check that
    fails pays for finding and naming the first offending row."""
    # Duplicates on 64-bit hashes of the pairs (a collision only raises a false alarm, which
    # _check_duplicates clears); consistency as "a query_id with two distinct (query, stratum)":
    # both a fraction of the cost of is_duplicated / n_unique().over() on a million rows.
    pair = pl.col("query_id").hash(11) ^ pl.col("doc_id").hash(13)
    flags = rows.select(
        (pair.n_unique() != pl.len()).alias("duplicates"),
        pl.any_horizontal(_LIST_FLAGS).fill_null(False).alias("lists"),
    ).row(0, named=True)
    flags["values"] = any(_has_blank(rows.get_column(c)) for c in ("query_id", "doc_id", "query"))
    flags["consistency"] = (
        rows.lazy()
        .select("query_id", "query", "stratum")
        .unique()
        .select(pl.col("query_id").is_duplicated().any())
        .collect()
        .item()
    )
    if flags["values"]:
        _check_values(p, rows, kind, ("query_id", "doc_id", "query"))
    if flags["duplicates"]:
        _check_duplicates(p, rows, kind)
    if flags["consistency"]:
        _check_query_consistency(p, rows, kind)
    if flags["lists"]:
        _check_systems_ranks(p, rows, kind)


def _where(rows: pl.DataFrame, i: int, kind: str) -> dict[str, int]:
    return {kind: int(rows.get_column(_WHERE)[i])}


def _check_values(p: Path, rows: pl.DataFrame, kind: str, columns: tuple[str, ...]) -> None:
    for col in columns:
        bad = rows.select(_blank(col)).to_series()
        if bad.any():
            i = as_int(bad.arg_max())
            count = int(bad.sum())
            more = f" ({count} rows in all)" if count > 1 else ""
            raise InputError(
                p, f"empty or missing {col}{more}", column=col, **_where(rows, i, kind)
            )


def _check_duplicates(p: Path, rows: pl.DataFrame, kind: str) -> None:
    repeat = ~pl.struct(list(POOL_KEY)).is_first_distinct()
    repeats = rows.with_row_index("_i").filter(repeat)
    if repeats.height == 0:
        return
    first = repeats.row(0, named=True)
    original = rows.filter(
        (pl.col("query_id") == first["query_id"]) & (pl.col("doc_id") == first["doc_id"])
    )
    seen_at = f"{kind} {original.get_column(_WHERE)[0]}"
    raise InputError(
        p,
        f"{repeats.height} duplicate (query_id, doc_id) row{'s' if repeats.height > 1 else ''}; the first: "
        f"query {first['query_id']!r}, document {first['doc_id']!r} (already on {seen_at})",
        column="doc_id",
        **{kind: int(first[_WHERE])},
    )


def _check_query_consistency(p: Path, rows: pl.DataFrame, kind: str) -> None:
    """One query text and one stratum per query_id: otherwise which one is being judged?"""
    for col in ("query", "stratum"):
        differs = pl.col(col).ne_missing(pl.col(col).first().over("query_id"))
        bad = rows.with_row_index("_i").filter(differs)
        if bad.height:
            row = bad.row(0, named=True)
            first = rows.filter(pl.col("query_id") == row["query_id"]).get_column(col)[0]
            raise InputError(
                p,
                f"query {row['query_id']!r} has two different {col} values: {_short_repr(first)} and "
                f"{_short_repr(row[col])}",
                column=col,
                **{kind: int(row[_WHERE])},
            )


_BOTH_LISTS = pl.col("systems").is_not_null() & pl.col("ranks").is_not_null()

_LIST_CHECKS = [
    (
        "ranks",
        _BOTH_LISTS & (pl.col("systems").list.len() != pl.col("ranks").list.len()),
        "systems and ranks have different lengths",
    ),
    ("ranks", pl.col("ranks").list.min().fill_null(1) < 1, "ranks start at 1"),
    (
        "systems",
        pl.col("systems").list.n_unique() != pl.col("systems").list.len(),
        "a system is listed twice for one candidate",
    ),
]

# Whether any row fails one of _LIST_CHECKS, each as one aggregate: "some row's smallest rank is
# below 1" is "the smallest of all ranks is below 1", read from the ranks in one run without a
# minimum per row.
_LIST_FLAGS = [
    _LIST_CHECKS[0][1].any(),
    pl.col("ranks").list.explode(keep_nulls=False, empty_as_null=False).min() < 1,
    _LIST_CHECKS[2][1].any(),
]


def _check_systems_ranks(p: Path, rows: pl.DataFrame, kind: str) -> None:
    for col, expr, message in _LIST_CHECKS:
        bad = rows.select(expr.fill_null(False)).to_series()
        if bad.any():
            i = as_int(bad.arg_max())
            raise InputError(p, message, column=col, **_where(rows, i, kind))


def _fill_from_corpus(rows: pl.DataFrame, corpus: Path) -> pl.DataFrame:
    """Pool texts win; the corpus fills what is missing or blank."""
    docs = read_corpus(corpus, ids=rows.get_column("doc_id"))
    joined = rows.join(
        docs.rename({"text": "_ctext", "title": "_ctitle"}),
        on="doc_id",
        how="left",
        maintain_order="left",
    )
    blank = _blank("text")
    return joined.with_columns(
        pl.when(blank).then(pl.col("_ctext")).otherwise(pl.col("text")).alias("text"),
        pl.coalesce("title", "_ctitle").alias("title"),
    ).drop("_ctext", "_ctitle")


def _check_texts(p: Path, rows: pl.DataFrame, kind: str, corpus: str | Path | None) -> None:
    bad = rows.select(_blank("text")).to_series()
    if not bad.any():
        return
    missing = rows.filter(bad).get_column("doc_id").unique(maintain_order=True)
    i = as_int(bad.arg_max())
    shown = ", ".join(repr(d) for d in missing.head(_SHOW_IDS).to_list())
    more = f" and {missing.len() - _SHOW_IDS} more" if missing.len() > _SHOW_IDS else ""
    source = (
        f"neither in the pool nor in the corpus {corpus}"
        if corpus
        else "give --corpus FILE to supply texts"
    )
    raise InputError(
        p,
        f"no text for {missing.len()} document{'s' if missing.len() > 1 else ''} ({source}): {shown}{more}",
        column="text",
        **_where(rows, i, kind),
    )
