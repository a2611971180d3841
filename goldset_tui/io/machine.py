"""Read graded labels from a file: TREC qrels, or a CSV/TSV/JSONL/Parquet table.

Contract: :func:`read_machine_labels` returns ``query_id, doc_id, grade, confidence, rationale``
and :func:`read_human_labels` ``query_id, doc_id, grade, note`` (plus ``_i``, where each label
was), or raise one
:class:`~goldset_tui.errors.InputError` naming the file and the line (text) or row (Parquet) of the
first problem: a grade that is not a whole number on the scale, a confidence outside 0-1, an empty
id, a pair given twice, a pair not in the pool. They write nothing; the caller writes only after
everything here has passed.

A machine labelling a pair twice is refused even with the same grade (see below); a person's
qrels from an earlier campaign often repeat a line verbatim when files were concatenated, so
:func:`read_human_labels` counts an identical repeat once and refuses only a different grade.

TREC qrels are read here line by line rather than with :func:`goldset_tui.io.trec.read_qrels`,
which quietly keeps one copy of a repeated line: a machine judge that labels a pair twice is a bug
in the pipeline that produced the file, worth a refusal that names the second line.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.io.tables import (
    JSONL_SUFFIXES,
    PARQUET_SUFFIXES,
    TEXT_FORMATS,
    check_file,
    location,
    raise_if_not_utf8,
    read_table,
    table_format,
)
from goldset_tui.model import GradeScale

COLUMNS = ("query_id", "doc_id", "grade", "confidence", "rationale")
# ``_i``: the line number (TREC) or 0-based data row (tables), kept until the checks are done.
SCHEMA = {
    "query_id": pl.String,
    "doc_id": pl.String,
    "grade": pl.Int64,
    "confidence": pl.Float64,
    "rationale": pl.String,
    "_i": pl.Int64,
}


_WHOLE = re.compile(r"[+-]?[0-9]+")


def is_table(path: Path) -> bool:
    suffix = path.suffix.lower()
    return suffix in TEXT_FORMATS or suffix in JSONL_SUFFIXES or suffix in PARQUET_SUFFIXES


def _read_trec(path: Path) -> pl.DataFrame:
    from goldset_tui.io.trec import open_source

    source = open_source(path)  # gzip and streams, as `goldset eval` reads qrels
    data = source.data if isinstance(source.data, bytes) else Path(source.data).read_bytes()
    raise_if_not_utf8(path, data)
    rows: dict[str, list[object]] = {c: [] for c in SCHEMA}
    # utf-8-sig: a leading byte order mark is not part of the first query id (as in read_qrels)
    for number, text in enumerate(data.decode("utf-8-sig").splitlines(), 1):
        fields = text.split()
        if not fields:
            continue
        if len(fields) != 4:
            # More fields than four is most often an id holding spaces ("doc a").
            hint = (
                "; ids with spaces cannot be in TREC qrels: give a CSV, TSV or JSONL file"
                if len(fields) > 4
                else ""
            )
            raise InputError(
                path,
                f"expected 4 fields (query_id iteration doc_id grade), found {len(fields)}{hint}",
                line=number,
            )
        # ASCII digits only, as `goldset eval` reads qrels: Python's int() would read 0_2 as 2.
        if not _WHOLE.fullmatch(fields[3]):
            raise InputError(
                path, f"grade {fields[3]!r} is not a whole number", line=number, column="grade"
            )
        grade = int(fields[3])
        if abs(grade) >= 2**63:  # beyond the Int64 column (a traceback before)
            raise InputError(
                path,
                f"grade {fields[3]!r} is outside every grade scale (0-9 at most)",
                line=number,
                column="grade",
            )
        rows["query_id"].append(fields[0])
        rows["doc_id"].append(fields[2])
        rows["grade"].append(grade)
        rows["confidence"].append(None)
        rows["rationale"].append(None)
        rows["_i"].append(number)
    return pl.DataFrame(rows, schema=SCHEMA)


def grade_value(text: object) -> float | None:
    """The number a grade cell holds, if any (to tell a huge whole number from no number)."""
    try:
        return float(str(text))
    except ValueError:
        return None


def _read_tabular(path: Path, text: str = "rationale") -> tuple[pl.DataFrame, str]:
    """``text``: the free-text column kept (a machine's rationale, a person's note); it comes
    back under the name ``rationale``."""
    fmt = table_format(path)
    table = read_table(
        path,
        required=("query_id", "doc_id", "grade"),
        non_empty=("query_id", "doc_id", "grade"),
        string_columns=("query_id", "doc_id", text),
        scalar=("confidence", text),
    )
    for name in ("grade", "confidence"):
        # Polars casts true to 1.0: a yes/no would pass as grade 1 or full confidence.
        if name in table.columns and table.schema[name] == pl.Boolean:
            raise InputError(
                path,
                f"{name} {str(table[name][0]).lower()} is yes/no, not a number",
                column=name,
                **location(fmt, 0, path),
            )
    # A dictionary-encoded Parquet column reads as Categorical, which Polars will not cast to a
    # number: read its values as the text they are.
    table = table.with_columns(
        pl.col(c).cast(pl.String)
        for c in ("grade", "confidence")
        if c in table.columns and isinstance(table.schema[c], (pl.Categorical, pl.Enum))
    )
    indexed = table.with_row_index("_i")
    raw_grade = pl.col("grade")
    grade = raw_grade.cast(pl.Float64, strict=False)
    # NaN equals itself in Polars and inf rounds to itself: both pass the round test, then
    # fail the cast to Int64 (a traceback), as a number beyond 64 bits does.
    bad = indexed.filter(
        grade.is_null() | ~grade.is_finite() | (grade != grade.round()) | (grade.abs() >= 2.0**63)
    )
    if bad.height:
        first = bad.row(0, named=True)
        huge = (value := grade_value(first["grade"])) is not None and abs(value) >= 2.0**63
        raise InputError(
            path,
            f"grade {first['grade']!r} is "
            + ("outside every grade scale (0-9 at most)" if huge else "not a whole number"),
            column="grade",
            **location(fmt, int(first["_i"]), path),
        )
    if "confidence" in table.columns:
        conf = pl.col("confidence").cast(pl.Float64, strict=False)
        bad = indexed.filter(
            (conf.is_null() & pl.col("confidence").is_not_null())
            | conf.is_nan()
            | (conf < 0)
            | (conf > 1)
        )
        if bad.height:
            first = bad.row(0, named=True)
            raise InputError(
                path,
                f"confidence {first['confidence']!r} is not a number from 0 to 1",
                column="confidence",
                **location(fmt, int(first["_i"]), path),
            )
    out = indexed.select(
        pl.col("query_id"),
        pl.col("doc_id"),
        grade.cast(pl.Int64).alias("grade"),
        (
            pl.col("confidence").cast(pl.Float64, strict=False)
            if "confidence" in table.columns
            else pl.lit(None, pl.Float64)
        ).alias("confidence"),
        (pl.col(text).cast(pl.String) if text in table.columns else pl.lit(None, pl.String)).alias(
            "rationale"
        ),
        pl.col("_i").cast(pl.Int64),
    )
    return out, fmt


@dataclass(frozen=True)
class Labels:
    """Checked labels of one file, each with ``_i`` (its line, or its 0-based Parquet data row),
    so a later check (the store's own grades) can still name where a label came from."""

    path: Path
    fmt: str
    frame: pl.DataFrame

    def refuse(self, bad: pl.DataFrame, message: str, column: str | None = None) -> NoReturn:
        """InputError at the first row of ``bad``; ``message`` may use ``{pair}`` and any of its
        columns (``{grade}``...)."""
        first = bad.row(0, named=True)
        # Located only on this error path: a CSV with quoted newlines needs a rescan of the file.
        at = (
            {"line": int(first["_i"])}
            if self.fmt == "trec"
            else location(self.fmt, int(first["_i"]), self.path)
        )
        pair = f"({first['query_id']}, {first['doc_id']})"
        more = f" ({bad.height} such labels)" if bad.height > 1 else ""
        raise InputError(
            self.path, f"{message.format(pair=pair, **first)}{more}", column=column, **at
        )


def read_labels(
    path: str | Path,
    scale: GradeScale,
    pool_pairs: pl.DataFrame | None,
    *,
    text: str = "rationale",
    identical_repeats: bool = False,
) -> Labels:
    """Every label of ``path``, checked against ``scale`` and (unless None) ``pool_pairs``
    (``query_id, doc_id``). ``identical_repeats``: a pair given twice with the same grade counts
    once (a different grade is still refused). See the module docstring for what is refused."""
    p = check_file(path)
    if is_table(p):
        frame, fmt = _read_tabular(p, text)
    else:
        frame, fmt = _read_trec(p), "trec"
    if frame.height == 0:
        raise InputError(p, "holds no labels")
    labels = Labels(p, fmt, frame)
    outside = frame.filter((pl.col("grade") < scale.min) | (pl.col("grade") > scale.max))
    if outside.height:
        labels.refuse(
            outside,
            f"grade {{grade}} for {{pair}} is outside the store's scale {scale.min}-{scale.max}",
            "grade",
        )
    if identical_repeats:
        frame = frame.unique(["query_id", "doc_id", "grade"], keep="first", maintain_order=True)
        labels = Labels(p, fmt, frame)
    twice = frame.filter(pl.int_range(pl.len()).over("query_id", "doc_id") > 0)
    if twice.height:
        if identical_repeats:
            labels.refuse(
                twice.join(
                    frame.unique(["query_id", "doc_id"], keep="first").select(
                        "query_id", "doc_id", pl.col("grade").alias("first_grade")
                    ),
                    on=["query_id", "doc_id"],
                    maintain_order="left",
                ),
                "{pair} is graded {grade} here but {first_grade} on an earlier line",
                "grade",
            )
        labels.refuse(twice, "{pair} is labelled a second time (one label per pair)")
    if pool_pairs is not None:
        stray = frame.join(
            pool_pairs.select("query_id", "doc_id").unique(),
            on=["query_id", "doc_id"],
            how="anti",
            maintain_order="left",
        )
        if stray.height:
            hint = _near_miss(stray.row(0, named=True), pool_pairs)
            labels.refuse(stray, "{pair} is not in the store's pool" + hint)
    return labels


def _near_miss(label: dict[str, object], pool_pairs: pl.DataFrame) -> str:
    """Why a pair that looks like one of the pool's is not it: ids are compared exactly, but
    another Unicode form (NFD from a Mac export) or spaces around an id print the same."""
    q, d = str(label["query_id"]), str(label["doc_id"])

    def loose(text: str) -> str:
        return unicodedata.normalize("NFC", text).strip()

    def loose_col(name: str) -> pl.Expr:
        return pl.col(name).str.normalize("NFC").str.strip_chars()

    near = pool_pairs.filter(
        (loose_col("query_id") == loose(q)) & (loose_col("doc_id") == loose(d))
    )
    if not near.height:
        return ""
    pq, pd = near.row(0)
    if (pq.strip(), pd.strip()) == (q.strip(), d.strip()):
        return f" (the pool has ({pq}, {pd}): ids are compared exactly, spaces included)"
    return f" (the pool has ({pq}, {pd}) in another Unicode form: ids are compared exactly)"


def read_machine_labels(
    path: str | Path, scale: GradeScale, pool_pairs: pl.DataFrame | None
) -> pl.DataFrame:
    """Every label of ``path``, checked against ``scale`` and (unless None) ``pool_pairs``
    (``query_id, doc_id``). See the module docstring for what is refused."""
    return read_labels(path, scale, pool_pairs).frame.drop("_i")


def read_human_labels(
    path: str | Path, scale: GradeScale, pool_pairs: pl.DataFrame | None
) -> Labels:
    """A person's grades: like :func:`read_machine_labels`, with an optional ``note`` column
    instead of confidence and rationale, and identical repeated lines counted once."""
    labels = read_labels(path, scale, pool_pairs, text="note", identical_repeats=True)
    frame = labels.frame.select(
        "query_id", "doc_id", "grade", pl.col("rationale").alias("note"), "_i"
    )
    return Labels(labels.path, labels.fmt, frame)
