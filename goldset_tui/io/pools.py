"""Read and validate a pool: the (query, candidate) pairs a labeller judges.

Two shapes are accepted:

- **flat**, one row per (query, candidate), from Parquet, CSV, TSV or JSONL chosen by
  extension: ``query_id``, ``query``, ``doc_id``, ``text`` required; ``title``, ``stratum``,
  ``systems`` and ``ranks`` optional. In CSV/TSV the two list columns are written
  ``bm25;dense`` and ``1;4`` (``;`` separates items) or as JSON lists ``["bm25","dense"]``.
- **nested** JSONL (docs/pools.md): one object per query with ``query_id``, ``query``, ``stratum``,
  ``pool_depth``, ``pooled_from``, ``candidates`` (objects with ``doc_id`` and optionally
  ``text``/``title``/``systems``/``ranks``, or bare doc-id strings) and an optional
  ``judgments`` map doc_id -> grade, imported as the prior labeller. Without ``candidates`` the
  judged documents are the candidates. A ``.json`` file of such objects (pretty-printed, one
  after another) is read the same way.

A corpus (``goldset_tui.io.corpus``) fills texts the pool does not carry. Every problem raises
:class:`InputError` naming the file, the line (text formats) or row (Parquet) and the column.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.io import digest_cache
from goldset_tui.io.pool_checks import _check_texts, _fill_from_corpus, _has_blank, _validate
from goldset_tui.io.pool_nested import _looks_nested, _read_nested
from goldset_tui.io.pool_schema import (
    _WHERE,
    FRAME_SCHEMA,
    LIST_SEPARATOR,
    PRIOR_LABELLER,
    PRIOR_SCHEMA,
    _short_repr,
)
from goldset_tui.io.tables import check_file, location, read_table, row_lines, table_format
from goldset_tui.io.topics import read_topics
from goldset_tui.model import GradeScale
from goldset_tui.scalar import as_int

__all__ = [
    "FRAME_SCHEMA",
    "LIST_SEPARATOR",
    "PRIOR_LABELLER",
    "PRIOR_SCHEMA",
    "Pool",
    "load_pool",
    "read_topics",
    "write_pool",
]


@dataclass
class Pool:
    """A validated pool. ``frame`` has one row per (query, candidate) in file order, with the
    columns of ``FRAME_SCHEMA``; ``prior`` holds grades a nested pool arrived with
    (``query_id, doc_id, grade``), to be imported as labeller ``prior_labeller``; ``meta`` maps
    query_id -> {"pool_depth": int, "pooled_from": [str]} when the nested shape gives them."""

    path: Path
    sha256: str
    frame: pl.DataFrame
    prior: pl.DataFrame | None = None
    meta: dict[str, dict[str, Any]] = field(default_factory=dict)
    prior_labeller: str = PRIOR_LABELLER
    shape: str = "flat"  # or "nested"

    def queries(self) -> pl.DataFrame:
        """``query_id, query, stratum, candidates`` in order of first appearance."""
        return self.frame.group_by("query_id", maintain_order=True).agg(
            pl.col("query").first(),
            pl.col("stratum").first(),
            pl.len().cast(pl.Int64).alias("candidates"),
        )

    def systems(self) -> list[str]:
        """Every system named in ``systems`` (or in ``pooled_from``), in order of first mention."""
        names = (
            self.frame.get_column("systems")
            .explode()
            .drop_nulls()
            .unique(maintain_order=True)
            .to_list()
        )
        for info in self.meta.values():
            names += [s for s in info.get("pooled_from") or [] if s not in names]
        return names


def load_pool(
    path: str | Path, *, corpus: str | Path | None = None, scale: GradeScale | None = None
) -> Pool:
    """Read ``path`` (flat or nested), fill texts from ``corpus``, validate everything."""
    p = check_file(path)
    # hashlib releases the GIL on large buffers: hash while Polars reads.
    with ThreadPoolExecutor(max_workers=1) as pool_hasher:
        digest = pool_hasher.submit(file_sha256, p)
        pool = _load(p, corpus, scale or GradeScale())
        pool.sha256 = digest.result()
    return pool


def _sha256(p: Path) -> str:
    """``store.files.sha256_file``, without importing the store (a fifth of the time the reading
    code takes to import, which `goldset check` and a notebook need not pay)."""
    with open(p, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


# Digests of regular files by what a change to their bytes changes (device, inode, size, times):
# opening a pool to judge hashed it to choose the store, then again while reading it (0.14 s of
# CPU each for 200 MB). Kept only for a file last changed two seconds or more before it was
# hashed: a write within the clock's tick after hashing could leave the times as they were.
_DIGESTS: dict[tuple[int, ...], str] = {}
_SETTLED_NS = 2_000_000_000


def file_sha256(path: str | Path) -> str:
    """The sha256 of the file's bytes, hashed once while the file stays as it is."""
    before = os.stat(path)
    if not stat.S_ISREG(before.st_mode):
        return _sha256(Path(path))
    key = (before.st_dev, before.st_ino, before.st_size, before.st_mtime_ns, before.st_ctime_ns)
    known = _DIGESTS.get(key) or digest_cache.recall(key)  # this run's, then an earlier run's
    if known is not None:
        _DIGESTS[key] = known
        return known
    digest = _sha256(Path(path))
    after = os.stat(path)
    same = key == (after.st_dev, after.st_ino, after.st_size, after.st_mtime_ns, after.st_ctime_ns)
    if same and time.time_ns() - max(before.st_mtime_ns, before.st_ctime_ns) >= _SETTLED_NS:
        if len(_DIGESTS) > 64:
            _DIGESTS.clear()
        _DIGESTS[key] = digest
        digest_cache.remember(key, digest)
    return digest


def _load(p: Path, corpus: str | Path | None, scale: GradeScale) -> Pool:
    where_kind = "line"
    prior = None
    meta: dict[str, dict[str, Any]] = {}
    if _looks_nested(p):
        rows, prior, meta = _read_nested(p, scale)
        shape = "nested"
    else:
        rows, where_kind = _read_flat(p, has_corpus=corpus is not None)
        shape = "flat"
    _validate(p, rows, where_kind)
    if corpus is not None:
        rows = _fill_from_corpus(rows, Path(corpus))
    if _has_blank(rows.get_column("text")):
        _check_texts(p, rows, where_kind, corpus)
    # Columns picked, not selected: select() goes through the query engine, which copied every
    # column into one chunk here (the texts of a million-row Parquet file: +0.1 s, +150 MB peak).
    frame = rows[list(FRAME_SCHEMA)]
    return Pool(path=p, sha256="", frame=frame, prior=prior, meta=meta, shape=shape)


# --- flat ----------------------------------------------------------------------------------------


def _read_flat(p: Path, *, has_corpus: bool) -> tuple[pl.DataFrame, str]:
    fmt = table_format(p)
    df = read_table(
        p,
        required=("query_id", "query", "doc_id"),
        string_columns=("query_id", "query", "doc_id", "text", "title", "stratum"),
    )
    if "text" not in df.columns and not has_corpus:
        found = ", ".join(df.columns)
        raise InputError(
            p,
            f"missing required column 'text' (found columns: {found}); a pool that lists only "
            "document ids needs --corpus FILE to supply the texts",
            column="text",
        )
    for col in ("text", "title", "stratum"):
        if col not in df.columns:
            df = df.with_columns(pl.lit(None, dtype=pl.Utf8).alias(col))
    n = df.height
    # Where each row is, as the user would look for it: CSV line (header is line 1), JSONL line,
    # Parquet row. Blank lines or quoted newlines make text positions approximate.
    offset = {"csv": 2, "tsv": 2, "jsonl": 1, "parquet": 1}[fmt]
    starts = row_lines(p, fmt) if fmt == "csv" else None  # quoted newlines: lines as an editor
    if starts is not None and len(starts) == n:
        df = df.with_columns(pl.Series(_WHERE, starts, dtype=pl.Int64))
    else:
        df = df.with_columns(pl.int_range(offset, n + offset, dtype=pl.Int64).alias(_WHERE))
    df = df.with_columns(
        _list_column(p, df, "systems", pl.Utf8, fmt),
        _list_column(p, df, "ranks", pl.Int64, fmt),
    )
    return df, ("row" if fmt == "parquet" else "line")


def _list_column(
    p: Path, df: pl.DataFrame, name: str, inner: type[pl.DataType], fmt: str
) -> pl.Series:
    """``systems``/``ranks`` as a list column, from native lists or ``a;b`` / JSON-list text."""
    if name not in df.columns:
        return pl.Series(name, [None] * df.height, dtype=pl.List(inner))
    col = df.get_column(name)
    _check_list_type(p, col, inner, fmt)
    if not isinstance(col.dtype, pl.List):
        col = col.cast(pl.Utf8)
        # `["bm25", "dense"]` and `bm25;dense` both become ["bm25", "dense"]; an empty cell is [].
        # The clean-up passes run only when some cell needs them (a plain `a;b` file skips them).
        if col.str.contains(r'[\[\]",\s]').any():
            col = col.str.replace_all(r'[\[\]"]', "").str.replace_all(",", LIST_SEPARATOR)
            col = col.str.split(LIST_SEPARATOR).list.eval(pl.element().str.strip_chars())
        else:
            col = col.str.split(LIST_SEPARATOR)
        if col.list.eval(pl.element() == "").list.any().any():
            col = col.list.eval(pl.element().filter(pl.element() != ""))
    if col.dtype == pl.List(inner):
        return col.alias(name)  # read as it belongs: nothing was cast, so nothing was lost
    cast = col.cast(pl.List(inner), strict=False)
    # A value that could not be read (a rank "x", a nested list) turns into a null: find it.
    lost = (cast.list.eval(pl.element().is_null()).list.any()) & ~(
        col.list.eval(pl.element().is_null()).list.any().fill_null(False)
    )
    lost = lost.fill_null(False) | (cast.is_null() & col.is_not_null())
    if lost.any():
        i = as_int(lost.arg_max())
        what = "whole numbers" if inner == pl.Int64 else "names"
        raise InputError(
            p,
            f"cannot read {name} value {_short_repr(df.get_column(name)[i])}: expected a list of {what} "
            f"written like {'1;4' if inner == pl.Int64 else 'bm25;dense'} or as a JSON list",
            column=name,
            **location(fmt, i),
        )
    return cast.alias(name)


# --- writing (for `goldset pool`) -------------------------------------------------------------


def write_pool(frame: pl.DataFrame, path: str | Path) -> None:
    """Write a flat pool by extension, atomically (a crash leaves the old file or none).

    CSV/TSV cannot hold lists: ``systems``/``ranks`` are written ``bm25;dense`` / ``1;4``, which
    ``load_pool`` reads back. TSV has no quoting, so a text holding a tab or a newline is refused
    there (use CSV, JSONL or Parquet)."""
    p = Path(path)
    fmt = table_format(p)
    out = frame
    if fmt in ("csv", "tsv"):
        out = frame.with_columns(
            pl.col(c).cast(pl.List(pl.Utf8)).list.join(LIST_SEPARATOR)
            for c in ("systems", "ranks")
            if c in frame.columns
        )
    if fmt == "tsv":
        text_cols = [c for c, t in out.schema.items() if t == pl.Utf8]
        bad = out.select(
            pl.any_horizontal(pl.col(text_cols).str.contains(r"[\t\n\r]")).fill_null(False)
        ).to_series()
        if bad.any():
            i = as_int(bad.arg_max())
            raise InputError(
                p,
                "a field holds a tab or a newline, which TSV cannot carry; write .csv, .jsonl or .parquet",
                line=i + 2,
            )

    def write(tmp: Path) -> None:
        if fmt == "parquet":
            out.write_parquet(tmp)
        elif fmt == "jsonl":
            out.write_ndjson(tmp)
        else:
            out.write_csv(
                tmp,
                separator="\t" if fmt == "tsv" else ",",
                quote_style="never" if fmt == "tsv" else "necessary",
            )

    from goldset_tui.store.files import atomic_write

    try:  # Polars reports a full disk in its own types: atomic_write makes it an OSError
        atomic_write(p, write)
    except OSError as exc:
        raise InputError(p, f"cannot write: {exc.strerror or exc}") from None


def _check_list_type(p: Path, col: pl.Series, inner: type[pl.DataType], fmt: str) -> None:
    """Native lists hold names (text) or ranks (whole numbers): a nested list, binary, or a rank
    like 1.7 is refused, never cast (a cast would turn 1.7 into 1 without a word)."""
    dtype = col.dtype
    if isinstance(dtype, pl.Array):
        dtype = pl.List(dtype.inner)
    if not isinstance(dtype, pl.List):
        if dtype == pl.String or dtype == pl.Null or (inner == pl.Int64 and dtype.is_integer()):
            return
        bad = col.is_not_null()
    else:
        have = dtype.inner
        if have == pl.Null or have == inner or (inner == pl.Int64 and have.is_integer()):
            return
        if inner == pl.Int64 and have.is_float():
            bad = col.list.eval((pl.element() != pl.element().round()).fill_null(False)).list.any()
            if not bad.fill_null(False).any():
                return  # 1.0, 2.0: whole numbers in a float column, nothing changes
        else:
            bad = col.is_not_null()
    i = as_int(bad.fill_null(False).arg_max() or 0)
    value = col[i]
    value = value.to_list() if isinstance(value, pl.Series) else value
    what = "whole numbers" if inner == pl.Int64 else "names (text)"
    raise InputError(
        p,
        f"{col.name} must be a list of {what}, found {_short_repr(value)}",
        column=col.name,
        **location(fmt, i, p),
    )
