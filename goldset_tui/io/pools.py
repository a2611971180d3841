"""Read and validate a pool: the (query, candidate) pairs a labeller judges.

Two shapes are accepted:

- **flat**, one row per (query, candidate), from Parquet, CSV, TSV or JSONL chosen by
  extension: ``query_id``, ``query``, ``doc_id``, ``text`` required; ``title``, ``stratum``,
  ``systems`` and ``ranks`` optional. In CSV/TSV the two list columns are written
  ``bm25;dense`` and ``1;4`` (``;`` separates items) or as JSON lists ``["bm25","dense"]``.
- **nested** JSONL (seed 000): one object per query with ``query_id``, ``query``, ``stratum``,
  ``pool_depth``, ``pooled_from``, ``candidates`` (objects with ``doc_id`` and optionally
  ``text``/``title``/``systems``/``ranks``, or bare doc-id strings) and an optional
  ``judgments`` map doc_id -> grade, imported as the prior labeller. Without ``candidates`` the
  judged documents are the candidates. A ``.json`` file of such objects (pretty-printed, one
  after another) is read the same way.

A corpus (``goldset_tui.io.corpus``) fills texts the pool does not carry. Every problem raises
:class:`InputError` naming the file, the line (text formats) or row (Parquet) and the column.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.io.corpus import read_corpus
from goldset_tui.io.tables import check_file, first_bad_utf8, location, read_table, table_format
from goldset_tui.model import POOL_KEY, GradeScale
from goldset_tui.scalar import as_int
from goldset_tui.store.files import sha256_file

PRIOR_LABELLER = "prior"
LIST_SEPARATOR = ";"
FRAME_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "query_id": pl.Utf8,
    "query": pl.Utf8,
    "doc_id": pl.Utf8,
    "text": pl.Utf8,
    "title": pl.Utf8,
    "stratum": pl.Utf8,
    "systems": pl.List(pl.Utf8),
    "ranks": pl.List(pl.Int64),
}
PRIOR_SCHEMA = {"query_id": pl.Utf8, "doc_id": pl.Utf8, "grade": pl.Int64}
# Internal: where each row came from, for error messages (a line, or a Parquet row).
_WHERE = "_where"
_SHOW_IDS = 5


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
        digest = pool_hasher.submit(sha256_file, p)
        pool = _load(p, corpus, scale or GradeScale())
        pool.sha256 = digest.result()
    return pool


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
    if rows.select(_blank("text").any()).item():
        _check_texts(p, rows, where_kind, corpus)
    frame = rows.select(list(FRAME_SCHEMA))
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


# --- nested --------------------------------------------------------------------------------------


def _looks_nested(p: Path) -> bool:
    suffix = p.suffix.lower()
    if suffix == ".json":
        return True
    if suffix not in (".jsonl", ".ndjson"):
        return False
    with p.open("rb") as fh:
        for raw in fh:
            line = raw.strip()
            if not line:
                continue
            try:
                first = json.loads(line)
            except (ValueError, UnicodeDecodeError):
                # A pretty-printed object opens with "{" alone on its line.
                return line == b"{"
            return (
                isinstance(first, dict)
                and "doc_id" not in first
                and ("candidates" in first or "judgments" in first)
            )
    return False


def _json_values(p: Path) -> Iterator[tuple[int, Any]]:
    """Every top-level JSON value in the file with the line it starts on (JSONL, or pretty
    objects one after another)."""
    data = p.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            p,
            f"bytes that are not UTF-8 (byte {exc.start})",
            line=data.count(b"\n", 0, exc.start) + 1,
        ) from None
    decoder = json.JSONDecoder()
    nonblank = re.compile(r"\S")
    pos, line = 0, 1
    while (m := nonblank.search(text, pos)) is not None:
        line += text.count("\n", pos, m.start())
        try:
            value, end = decoder.raw_decode(text, m.start())
        except json.JSONDecodeError as exc:
            # Name the line the broken object starts on (in JSONL, its line); say where it broke.
            at = (
                f"column {exc.colno}"
                if exc.lineno == line
                else f"line {exc.lineno} column {exc.colno}"
            )
            raise InputError(p, f"JSON does not parse: {exc.msg} at {at}", line=line) from None
        yield line, value
        line += text.count("\n", m.start(), end)
        pos = end


def _read_nested(
    p: Path, scale: GradeScale
) -> tuple[pl.DataFrame, pl.DataFrame | None, dict[str, dict[str, Any]]]:
    cols: dict[str, list[Any]] = {name: [] for name in (*FRAME_SCHEMA, _WHERE)}
    prior_rows: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "grade": []}
    meta: dict[str, dict[str, Any]] = {}
    seen: dict[str, int] = {}
    any_judgments = False
    for line, obj in _json_values(p):
        if not isinstance(obj, dict):
            raise InputError(
                p, f"expected a JSON object per query, found {type(obj).__name__}", line=line
            )
        q = _QueryObject(p, line, obj)
        qid = q.identifier("query_id")
        if qid in seen:
            raise InputError(
                p, f"query {qid!r} already given on line {seen[qid]}", line=line, column="query_id"
            )
        seen[qid] = line
        query = q.text("query", required=True)
        stratum = q.text("stratum")
        meta[qid] = {
            k: v
            for k, v in (("pool_depth", q.depth()), ("pooled_from", q.names("pooled_from")))
            if v is not None
        }
        judgments = q.judgments(scale)
        any_judgments = any_judgments or judgments is not None
        candidates = q.candidates()
        if candidates is None:
            if judgments is None:
                raise InputError(
                    p,
                    "query has neither 'candidates' nor 'judgments'",
                    line=line,
                    column="candidates",
                )
            candidates = [{"doc_id": d} for d in judgments]
        if not candidates:
            raise InputError(p, f"query {qid!r} has no candidates", line=line, column="candidates")
        for cand in candidates:
            cols["query_id"].append(qid)
            cols["query"].append(query)
            cols["stratum"].append(stratum)
            cols[_WHERE].append(line)
            for key in ("doc_id", "text", "title", "systems", "ranks"):
                cols[key].append(cand.get(key))
        for doc, grade in (judgments or {}).items():
            prior_rows["query_id"].append(qid)
            prior_rows["doc_id"].append(doc)
            prior_rows["grade"].append(grade)
    if not seen:
        raise InputError(p, "has no query objects")
    frame = pl.DataFrame(cols, schema={**FRAME_SCHEMA, _WHERE: pl.Int64})
    prior = pl.DataFrame(prior_rows, schema=PRIOR_SCHEMA) if any_judgments else None
    return frame, prior, meta


class _QueryObject:
    """Field access on one nested query object, raising InputError at its line."""

    def __init__(self, path: Path, line: int, obj: dict[str, Any]) -> None:
        self.path, self.line, self.obj = path, line, obj

    def fail(self, message: str, column: str) -> InputError:
        return InputError(self.path, message, line=self.line, column=column)

    def identifier(self, key: str, value: Any = None, where: str = "") -> str:
        value = self.obj.get(key) if value is None and not where else value
        if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
            raise self.fail(f"{where}empty or missing {key}", key)
        return str(value)

    def text(self, key: str, *, required: bool = False) -> str | None:
        value = self.obj.get(key)
        if value is None and not required:
            return None
        if not isinstance(value, str) or (required and not value.strip()):
            raise self.fail(f"{key} must be non-empty text, found {_short_repr(value)}", key)
        return value

    def depth(self) -> int | None:
        value = self.obj.get("pool_depth")
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.fail(
                f"pool_depth must be a positive whole number, found {_short_repr(value)}",
                "pool_depth",
            )
        return value

    def names(self, key: str, value: Any = None, where: str = "") -> list[str] | None:
        value = self.obj.get(key) if value is None and not where else value
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise self.fail(
                f"{where}{key} must be a list of names, found {_short_repr(value)}", key
            )
        return value

    def judgments(self, scale: GradeScale) -> dict[str, int] | None:
        value = self.obj.get("judgments")
        if value is None:
            return None
        if not isinstance(value, dict):
            raise self.fail(
                f"judgments must map doc_id to grade, found {_short_repr(value)}", "judgments"
            )
        for doc, grade in value.items():
            if not doc.strip():
                raise self.fail("judgments has an empty doc_id", "judgments")
            if grade not in scale:
                raise self.fail(
                    f"grade {_short_repr(grade)} for {doc!r} is outside the scale {scale.min}-{scale.max}",
                    "judgments",
                )
        return value

    def candidates(self) -> list[dict[str, Any]] | None:
        value = self.obj.get("candidates")
        if value is None:
            return None
        if not isinstance(value, list):
            raise self.fail(f"candidates must be a list, found {_short_repr(value)}", "candidates")
        out = []
        for n, cand in enumerate(value, start=1):
            where = f"candidate {n}: "
            if isinstance(cand, (str, int)) and not isinstance(cand, bool):
                out.append({"doc_id": self.identifier("doc_id", cand, where)})
                continue
            if not isinstance(cand, dict):
                raise self.fail(
                    f"{where}expected a doc id or an object, found {_short_repr(cand)}",
                    "candidates",
                )
            row: dict[str, Any] = {"doc_id": self.identifier("doc_id", cand.get("doc_id"), where)}
            for key in ("text", "title"):
                if cand.get(key) is not None and not isinstance(cand[key], str):
                    raise self.fail(
                        f"{where}{key} must be text, found {_short_repr(cand[key])}", key
                    )
                row[key] = cand.get(key)
            row["systems"] = self.names("systems", cand.get("systems"), where)
            ranks = cand.get("ranks")
            if ranks is not None and (
                not isinstance(ranks, list)
                or not all(isinstance(r, int) and not isinstance(r, bool) for r in ranks)
            ):
                raise self.fail(
                    f"{where}ranks must be a list of whole numbers, found {_short_repr(ranks)}",
                    "ranks",
                )
            row["ranks"] = ranks
            out.append(row)
        return out


# --- checks shared by both shapes ----------------------------------------------------------------


def _blank(col: str | pl.Expr) -> pl.Expr:
    """Null, empty or only whitespace. A search for one non-space character stops at the first
    one, and allocates nothing (stripping a million texts would copy them all)."""
    expr = pl.col(col) if isinstance(col, str) else col
    return expr.is_null() | ~expr.str.contains(r"\S")


def _validate(p: Path, rows: pl.DataFrame, kind: str) -> None:
    """Every check at once as cheap yes/no aggregates (one pass, in parallel); only a check that
    fails pays for finding and naming the first offending row."""
    # Duplicates on 64-bit hashes of the pairs (a collision only raises a false alarm, which
    # _check_duplicates clears); consistency as "a query_id with two distinct (query, stratum)":
    # both a fraction of the cost of is_duplicated / n_unique().over() on a million rows.
    pair = pl.col("query_id").hash(11) ^ pl.col("doc_id").hash(13)
    flags = rows.select(
        pl.any_horizontal(_blank(c) for c in ("query_id", "doc_id", "query")).any().alias("values"),
        (pair.n_unique() != pl.len()).alias("duplicates"),
        _list_problems().any().alias("lists"),
    ).row(0, named=True)
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


def _list_problems() -> pl.Expr:
    return pl.any_horizontal(expr for _, expr, _ in _LIST_CHECKS).fill_null(False)


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


def _short_repr(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- writing and topics (for `goldset pool`) ---------------------------------------------------


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
    tmp = p.with_name(f".{p.name}.tmp")
    try:
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
        with tmp.open("rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(p, f"cannot write: {exc.strerror or exc}") from None


_TOPIC_HEADER_IDS = {"qid", "query_id", "_id", "id", "query-id", "topic", "topic_id"}


def read_topics(path: str | Path) -> pl.DataFrame:
    """``query_id, query, stratum`` from BEIR ``queries.jsonl`` (``_id``, ``text``), a table with
    ``query_id``/``query`` columns (CSV, Parquet, JSONL), or a TSV ``qid<TAB>text`` without a
    header (an optional third field is the stratum; a header line is recognised and skipped)."""
    p = check_file(path)
    suffix = p.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".csv", ".parquet", ".pq"):
        df = read_table(p)
        renames = {"_id": "query_id", "text": "query"}
        df = df.rename(
            {k: v for k, v in renames.items() if k in df.columns and v not in df.columns}
        )
        for col in ("query_id", "query"):
            if col not in df.columns:
                raise InputError(
                    p,
                    f"missing column {col!r} for topics (expected BEIR _id/text or query_id/query; "
                    f"found: {', '.join(df.columns)})",
                    column=col,
                )
        fmt = table_format(p)
        first_line = {"csv": 2, "jsonl": 1, "parquet": 1}[fmt]
        kind = "row" if fmt == "parquet" else "line"
        df = df.with_columns(
            pl.int_range(first_line, df.height + first_line, dtype=pl.Int64).alias(_WHERE)
        )
    else:
        df = _read_topics_tsv(p)
        kind = "line"
    if "stratum" not in df.columns:
        df = df.with_columns(pl.lit(None, dtype=pl.Utf8).alias("stratum"))
    try:
        df = df.select(*(pl.col(c).cast(pl.Utf8) for c in ("query_id", "query", "stratum")), _WHERE)
    except pl.exceptions.PolarsError:
        raise InputError(p, "query_id, query and stratum must be text") from None
    _check_values(p, df, kind, ("query_id", "query"))
    repeats = df.filter(~pl.col("query_id").is_first_distinct())
    if repeats.height:
        row = repeats.row(0, named=True)
        seen = df.filter(pl.col("query_id") == row["query_id"]).get_column(_WHERE)[0]
        raise InputError(
            p,
            f"query {row['query_id']!r} is listed twice (first on {kind} {seen})",
            column="query_id",
            **{kind: int(row[_WHERE])},
        )
    return df.drop(_WHERE)


def _read_topics_tsv(p: Path) -> pl.DataFrame:
    data = p.read_bytes()
    bad = first_bad_utf8(data)
    if bad is not None:
        raise InputError(p, f"bytes that are not UTF-8 (byte {bad[1]})", line=bad[0])
    lines = data.decode("utf-8").splitlines()
    first = lines[0].split("\t", 1)[0].strip().lower() if lines else ""
    skip = 1 if first in _TOPIC_HEADER_IDS else 0
    rows: dict[str, list[Any]] = {"query_id": [], "query": [], "stratum": [], _WHERE: []}
    for number, line in enumerate(lines[skip:], start=skip + 1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) not in (2, 3):
            raise InputError(
                p,
                f"expected qid<TAB>text (and optionally <TAB>stratum), found {len(fields)} field(s)",
                line=number,
            )
        rows["query_id"].append(fields[0].strip())
        rows["query"].append(fields[1].strip())
        rows["stratum"].append((fields[2].strip() or None) if len(fields) == 3 else None)
        rows[_WHERE].append(number)
    if not rows[_WHERE]:
        raise InputError(p, "has no topics")
    return pl.DataFrame(
        rows, schema={"query_id": pl.Utf8, "query": pl.Utf8, "stratum": pl.Utf8, _WHERE: pl.Int64}
    )
