"""Ratings: who gave which grade to which unit, from a store's journal or from qrels files.

A unit is a (query_id, doc_id) pair. A labeller who did not judge a unit is missing there (no row),
never a zero. The ratings frame is the input of every coefficient:

    labeller: str, query_id: str, doc_id: str, grade: i64, seconds: f64, note: str, unit: i64

``unit`` is a dense integer id of the pair, so joins and group-bys run on one integer column.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.model import GradeScale
from goldset_tui.scalar import as_int

RATING_COLUMNS = ("labeller", "query_id", "doc_id", "grade", "seconds", "note")


def ratings_from_judgments(
    judgments: pl.DataFrame, history: pl.DataFrame | None = None
) -> pl.DataFrame:
    """Ratings from the store's current judgments (``Project.judgments()``: one row per labeller
    and pair, undos already resolved, blind repeats never in force).

    With ``history`` (``Project.judgments(history=True)``), time spent is summed over every grading
    event of the pair, so a labeller who came back to a pair is credited for both visits.
    """
    key = ["labeller", "query_id", "doc_id"]
    if judgments.height == 0:
        return empty_ratings()
    current = judgments.filter(pl.col("grade").is_not_null())
    if "seq" in current.columns:
        current = current.sort("seq").group_by(key, maintain_order=True).last()
    current = current.with_columns(
        pl.col("grade").cast(pl.Int64),
        pl.col("seconds").cast(pl.Float64)
        if "seconds" in current.columns
        else pl.lit(None, pl.Float64).alias("seconds"),
        pl.col("note").cast(pl.Utf8)
        if "note" in current.columns
        else pl.lit(None, pl.Utf8).alias("note"),
    )
    if history is not None and history.height:
        spent = (
            history.filter(pl.col("kind") == "judge")
            .group_by(key)
            # Imported grades carry no time: their sum stays unknown (null), not 0 seconds,
            # which the adjudication screen showed as "0s" spent on every imported grade.
            .agg(
                pl.when(pl.col("seconds").is_not_null().any())
                .then(pl.col("seconds").sum())
                .alias("spent")
            )
        )
        current = current.join(spent, on=key, how="left").with_columns(
            seconds=pl.coalesce("spent", "seconds")
        )
    return with_unit_ids(current.select(RATING_COLUMNS))


def ratings_from_qrels(qrels: Mapping[str, pl.DataFrame]) -> pl.DataFrame:
    """One labeller per named qrels frame (query_id, doc_id, grade).

    A pair listed twice in one file with different grades is ambiguous: refuse it rather than
    guess which line the labeller meant.
    """
    frames = []
    for name, frame in qrels.items():
        df = frame.select(
            pl.col("query_id").cast(pl.Utf8),
            pl.col("doc_id").cast(pl.Utf8),
            pl.col("grade").cast(pl.Int64),
        ).unique()
        dup = df.group_by("query_id", "doc_id").len().filter(pl.col("len") > 1)
        if dup.height:
            q, d, _ = dup.row(0)
            raise InputError(name, f"pair ({q}, {d}) has more than one grade")
        frames.append(
            df.with_columns(
                labeller=pl.lit(name),
                seconds=pl.lit(None, dtype=pl.Float64),
                note=pl.lit(None, dtype=pl.Utf8),
            )
        )
    if not frames:
        return empty_ratings()
    return with_unit_ids(pl.concat(frames, how="diagonal").select(RATING_COLUMNS))


def empty_ratings() -> pl.DataFrame:
    return pl.DataFrame(
        schema={
            "labeller": pl.Utf8,
            "query_id": pl.Utf8,
            "doc_id": pl.Utf8,
            "grade": pl.Int64,
            "seconds": pl.Float64,
            "note": pl.Utf8,
            "unit": pl.Int64,
        }
    )


def with_unit_ids(ratings: pl.DataFrame) -> pl.DataFrame:
    unit = pl.struct("query_id", "doc_id").rank("dense").cast(pl.Int64) - 1
    return ratings.with_columns(unit=unit).sort("unit", "labeller")


def check_scale(ratings: pl.DataFrame, scale: GradeScale, source: str | None = None) -> None:
    """Refuse grades outside the declared scale, naming the first one found."""
    bad = ratings.filter((pl.col("grade") < scale.min) | (pl.col("grade") > scale.max))
    if bad.height:
        row = bad.row(0, named=True)
        raise InputError(
            source or row["labeller"],
            f"grade {row['grade']} for ({row['query_id']}, {row['doc_id']}) by {row['labeller']} "
            f"is outside the scale {scale.min}-{scale.max} ({bad.height} such grades)",
        )


def infer_scale(ratings: pl.DataFrame) -> GradeScale:
    """0 (or the lowest grade, if negative grades were kept) up to the highest grade seen."""
    if ratings.height == 0:
        return GradeScale()
    lo = min(0, as_int(ratings.get_column("grade").min()))
    hi = max(as_int(ratings.get_column("grade").max()), lo + 1)
    return GradeScale.from_range(lo, hi)


def values(ratings: pl.DataFrame) -> pl.DataFrame:
    """The ``unit, value`` view Krippendorff's alpha reads."""
    return ratings.select("unit", pl.col("grade").alias("value"))


def pair_frame(ratings: pl.DataFrame, a: str, b: str) -> pl.DataFrame:
    """Units graded by both ``a`` and ``b``: columns unit, a, b."""
    left = ratings.filter(pl.col("labeller") == a).select("unit", pl.col("grade").alias("a"))
    right = ratings.filter(pl.col("labeller") == b).select("unit", pl.col("grade").alias("b"))
    return left.join(right, on="unit", how="inner")


def rating_table(ratings: pl.DataFrame, grades: list[int]) -> list[list[int]]:
    """Units x grades counts (Fleiss' table) of the units rated at least twice.

    A unit rated once says nothing about agreement (Fleiss' per-unit agreement divides by m - 1),
    and under overlap by design most units are rated once: Fleiss applies when the overlap units
    all carry the same number of ratings.
    """
    counts = ratings.filter(pl.len().over("unit") >= 2).group_by("unit", "grade").len()
    if counts.height == 0:
        return []
    wide = counts.pivot(on="grade", index="unit", values="len")
    columns = [
        pl.col(str(g)).fill_null(0) if str(g) in wide.columns else pl.lit(0).alias(str(g))
        for g in grades
    ]
    return [list(row) for row in wide.sort("unit").select(columns).iter_rows()]
