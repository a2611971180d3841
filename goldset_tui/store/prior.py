"""Prior grades that come with a pool (a ``grade`` column), checked whole before any is stored.

``checked_prior`` refuses, naming the pool file and the row: a missing id, a grade that is not a
whole number on the project's scale, and one pair given two different grades (which of them the
labeller meant cannot be guessed). The same grade given twice is kept once.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.model import GradeScale

_CHECKED = {
    "query_id": pl.String,
    "doc_id": pl.String,
    "grade": pl.Int64,
    "time": pl.String,
    "note": pl.String,
}


def checked_prior(frame: pl.DataFrame, scale: GradeScale, where: Path) -> pl.DataFrame:
    """``query_id, doc_id, grade (i64), time, note`` of ``frame``, checked against ``scale``;
    ``where`` is the file the rows came from (named in the error)."""
    missing = [c for c in ("query_id", "doc_id", "grade") if c not in frame.columns]
    if missing:
        raise InputError(where, f"prior judgments lack column(s) {', '.join(missing)}")
    if frame.height == 0:
        return pl.DataFrame(schema=_CHECKED)
    prior = frame.with_row_index("_row", offset=1).select(
        "_row",
        pl.col("query_id").cast(pl.String),
        pl.col("doc_id").cast(pl.String),
        pl.col("grade").alias("_raw"),
        pl.col("grade").cast(pl.Float64, strict=False).alias("_grade"),
        (
            pl.col("time").cast(pl.String) if "time" in frame.columns else pl.lit(None, pl.String)
        ).alias("time"),
        (
            pl.col("note").cast(pl.String) if "note" in frame.columns else pl.lit(None, pl.String)
        ).alias("note"),
    )
    bad_id = prior.filter(
        pl.col("query_id").is_null()
        | pl.col("doc_id").is_null()
        | (pl.col("query_id").str.strip_chars() == "")
        | (pl.col("doc_id").str.strip_chars() == "")
    )
    if bad_id.height:
        raise InputError(
            where, "prior judgment without a query_id or doc_id", row=bad_id["_row"][0]
        )
    bad = prior.filter(
        pl.col("_grade").is_null()
        | (pl.col("_grade") != pl.col("_grade").round())
        | (pl.col("_grade") < scale.min)
        | (pl.col("_grade") > scale.max)
    )
    if bad.height:
        row = bad.row(0, named=True)
        raise InputError(
            where,
            f"prior grade {row['_raw']!r} for ({row['query_id']}, {row['doc_id']}) is outside the "
            f"scale {scale.min}-{scale.max}",
            row=row["_row"],
            column="grade",
        )
    prior = prior.with_columns(pl.col("_grade").cast(pl.Int64).alias("grade")).unique(
        ["query_id", "doc_id", "grade"], keep="first", maintain_order=True
    )
    clash = prior.filter(pl.len().over("query_id", "doc_id") > 1)
    if clash.height:
        row = clash.row(0, named=True)
        raise InputError(
            where,
            f"prior judgments give ({row['query_id']}, {row['doc_id']}) different grades",
            row=row["_row"],
        )
    return prior.select(*_CHECKED)
