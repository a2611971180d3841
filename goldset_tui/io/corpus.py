"""Read a document corpus: the texts a pool that lists only ids is judged on.

Accepted shapes (by extension, through the shared table reader):

- BEIR ``corpus.jsonl``: one object per line with ``_id``, ``text`` and optionally ``title``
  (extra fields such as ``metadata`` are ignored);
- a CSV/TSV/Parquet/JSONL table with a header and columns ``doc_id``, ``text`` and optionally
  ``title``.

Only the documents a pool asks for are kept, so a large corpus costs one read and a filter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.io.tables import (
    check_file,
    has_glob_chars,
    location,
    location_text,
    read_table,
    table_format,
)
from goldset_tui.io.values import loads_json
from goldset_tui.scalar import as_int


def read_corpus(path: str | Path, ids: pl.Series | None = None) -> pl.DataFrame:
    """``doc_id, text, title`` (all str; title may be null), one row per document.

    With ``ids``, only those documents are returned (others are not validated beyond the
    generic checks). A doc id listed twice is an error, since the pool could not tell which text
    is meant.
    """
    p = Path(path)
    df = None
    if ids is not None:
        try:
            df = _scan_needed(p, ids)
        except (_NotFast, pl.exceptions.PolarsError, OSError, ValueError):
            df = None  # the careful path below reads everything and names what is wrong
    if df is None:
        df = _read_whole(p, ids)
    return _check_repeats(p, df)


class _NotFast(Exception):
    """The lazy path cannot be sure of this file; read it whole."""


def _scan_needed(p: Path, ids: pl.Series) -> pl.DataFrame:
    """Scan lazily and keep only the asked-for documents: a multi-gigabyte BEIR corpus then
    costs one pass and the memory of the few thousand documents a pool needs."""
    check_file(p)
    fmt = table_format(p)
    if fmt == "jsonl":
        first = _first_json_object(p)
        id_key = "_id" if "_id" in first else "doc_id"
        if id_key not in first or "text" not in first:
            raise _NotFast
        schema = {id_key: pl.Utf8, "title": pl.Utf8, "text": pl.Utf8}
        if has_glob_chars(p):  # scan_ndjson has no glob=False: read through a file object
            with p.open("rb") as handle:
                lf = pl.read_ndjson(handle, schema=schema).lazy()
        else:
            lf = pl.scan_ndjson(p, schema=schema)
    elif fmt == "parquet":
        lf = pl.scan_parquet(p, glob=False)
    else:
        sep = "\t" if fmt == "tsv" else ","
        lf = pl.scan_csv(
            p, separator=sep, infer_schema=False, quote_char='"' if sep == "," else None, glob=False
        )
    names = lf.collect_schema().names()
    id_key = "_id" if "_id" in names and "doc_id" not in names else "doc_id"
    if id_key not in names or "text" not in names:
        raise _NotFast
    title = (
        pl.col("title").cast(pl.Utf8)
        if "title" in names
        else pl.lit(None, dtype=pl.Utf8).alias("title")
    )
    wanted = ids.cast(pl.Utf8).unique().implode()
    return (
        lf.with_row_index("_row")
        .select(
            "_row",
            pl.col(id_key).cast(pl.Utf8).alias("doc_id"),
            pl.col("text").cast(pl.Utf8),
            title,
        )
        .filter(pl.col("doc_id").is_in(wanted))
        .collect()
    )


def _first_json_object(p: Path) -> dict[str, Any]:
    with p.open("rb") as fh:
        for raw in fh:
            if raw.strip():
                value = loads_json(raw)
                if isinstance(value, dict):
                    return value
                raise _NotFast
    raise _NotFast


def _read_whole(p: Path, ids: pl.Series | None) -> pl.DataFrame:
    df = read_table(p)
    if "_id" in df.columns and "doc_id" not in df.columns:
        df = df.rename({"_id": "doc_id"})  # BEIR
    for col in ("doc_id", "text"):
        if col not in df.columns:
            found = ", ".join(df.columns)
            raise InputError(
                p,
                f"missing required column {col!r} for a corpus (expected BEIR _id/title/text or "
                f"doc_id/text; found columns: {found})",
                column=col,
            )
    fmt = table_format(p)
    df = df.with_row_index("_row")
    if "title" not in df.columns:
        df = df.with_columns(title=pl.lit(None, dtype=pl.Utf8))
    try:
        df = df.select(
            "_row",
            pl.col("doc_id").cast(pl.Utf8),
            pl.col("text").cast(pl.Utf8),
            pl.col("title").cast(pl.Utf8),
        )
    except pl.exceptions.PolarsError as exc:
        raise InputError(
            p, f"doc_id, text and title must be text ({' '.join(str(exc).split())[:120]})"
        ) from None
    if ids is not None:
        return df.filter(pl.col("doc_id").is_in(ids.cast(pl.Utf8).unique().implode()))
    bad_id = df.get_column("doc_id").is_null() | (df.get_column("doc_id").str.strip_chars() == "")
    if bad_id.any():
        first = as_int(df.get_column("_row")[as_int(bad_id.arg_max())])
        raise InputError(p, "empty or missing document id", column="doc_id", **location(fmt, first))
    return df


def _check_repeats(p: Path, df: pl.DataFrame) -> pl.DataFrame:
    fmt = table_format(p)
    repeats = df.filter(~pl.col("doc_id").is_first_distinct())
    if repeats.height:
        doc = repeats.get_column("doc_id")[0]
        first_row = int(df.filter(pl.col("doc_id") == doc).get_column("_row")[0])
        where = location(fmt, int(repeats.get_column("_row")[0]))
        seen_text = location_text(fmt, first_row)
        raise InputError(
            p,
            f"document id {doc!r} appears more than once (first at {seen_text}; "
            f"{repeats.height} repeated ids in all)",
            column="doc_id",
            **where,
        )
    return df.drop("_row")
