"""Zero-click queries: the searches that found nothing worth a click, per stratum and over time.

A log only holds the queries people still type. Those who learnt the search box fails them
stopped typing theirs, and no sample of the log can show them (docs/drift.md). What a log can
show is the queries that are failing *now*: searches that got no click (or, with a result-count
column, no result). Watching their share per stratum from one log to the next, the zero-click
queries that come back, and the ones that fit no stratum well, is how new strata are found
before their users give up.

A row of the log is one search, or ``count`` searches of the same query; its clicks column holds
the clicks those searches got in all (a whole number >= 0). The row's searches are zero-click
when it is 0. So a per-search log reads as it is, and an aggregated log (query, count, clicks)
counts a query's searches as zero-click only when none of them was clicked: the finer
distinction is not in such a log. Queries are normalised as `goldset classify` normalises them
(``sampling.normalise``), so the zero-click counts join its labels query for query.

This step runs on classify's output (the labels), not inside it: the clicks column is read on
its own (streamed, as classify streams its count), and its counts are joined to the labels by
query.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.io.tables import (
    JSONL_SUFFIXES,
    PARQUET_SUFFIXES,
    TEXT_FORMATS,
    check_file,
    location,
    read_table,
    table_format,
)
from goldset_tui.sampling.normalise import TABLE_SUFFIXES, normalise, parse_counts
from goldset_tui.scalar import as_int

ZERO = "zero_click"  # the labels' column: occurrences of the query that got no click
RECURRING = 2  # zero-click searches of one query before it is listed as recurring


def read_zero_clicks(log: str | Path, column: str) -> pl.DataFrame:
    """``query, zero_click`` (normalised query; its searches that got no click), one row per
    distinct query of the log, from the log's ``column``.

    CSV, TSV and Parquet logs are scanned in Polars' streaming engine, memory bounded by the
    distinct raw strings; anything the scan doubts (a bad value, a short row, text that is not
    UTF-8) goes through the careful reader, which names the file and line, as `goldset
    classify`'s own count does. JSON lines go through the careful reader."""
    p = Path(log)
    if p.suffix.lower() not in TABLE_SUFFIXES:
        raise InputError(
            p,
            f"--clicks {column}: a plain-text log has no columns; give a CSV, TSV, Parquet or "
            "JSONL log",
        )
    check_file(p)
    grouped = None
    if p.suffix.lower() not in JSONL_SUFFIXES:
        grouped = _scan(p, column)
    if grouped is None:
        grouped = _careful(p, column)
    return (
        grouped.with_columns(normalise(pl.col("raw")).alias("query"))
        .filter(pl.col("query").is_not_null() & (pl.col("query") != ""))
        .group_by("query")
        .agg(pl.col(ZERO).sum().cast(pl.Int64))
    )


def _zero(count: pl.Expr, clicks: pl.Expr) -> pl.Expr:
    return pl.when(clicks == 0).then(count).otherwise(0).alias(ZERO)


def _careful(p: Path, column: str) -> pl.DataFrame:
    """``raw, zero_click`` by the careful reader: every bad value named with its line."""
    df = read_table(
        p, required=("query", column), string_columns=("query",), scalar=(column, "count")
    )
    fmt = table_format(p)
    clicks = _whole(df.get_column(column), p, fmt, column)
    counts = (
        parse_counts(df.get_column("count"), p, fmt)
        if "count" in df.columns
        else pl.Series("count", [1] * df.height, dtype=pl.Int64)
    )
    frame = pl.DataFrame({"raw": df.get_column("query"), "count": counts, "clicks": clicks})
    return frame.group_by("raw").agg(_zero(pl.col("count"), pl.col("clicks")).sum())


def _scan(p: Path, column: str) -> pl.DataFrame | None:
    """``raw, zero_click`` by a streaming scan, or None when the careful reader must look."""
    try:
        if p.suffix.lower() in PARQUET_SUFFIXES:
            table = pl.scan_parquet(p, glob=False)
        else:
            sep = TEXT_FORMATS[p.suffix.lower()]
            table = pl.scan_csv(
                p,
                separator=sep,
                infer_schema=False,
                glob=False,
                quote_char='"' if sep == "," else None,
            )
        schema = table.collect_schema()
        if schema.get("query") != pl.String or column not in schema:
            return None
        clicks = _as_int(pl.col(column), schema[column])
        count = _as_int(pl.col("count"), schema["count"]) if "count" in schema else pl.lit(1)
        if clicks is None or count is None:
            return None
        last = schema.names()[-1]
        # Polars pads a short CSV row with nulls: a null in the last column may be one.
        short = pl.col(last).is_null() if p.suffix.lower() in TEXT_FORMATS else pl.lit(False)
        bad = (clicks.is_null() | (clicks < 0) | count.is_null() | (count < 1) | short).fill_null(
            True
        )
        grouped = (
            table.select(pl.col("query").alias("raw"), _zero(count, clicks), bad.alias("_bad"))
            .group_by("raw")
            .agg(pl.col(ZERO).sum(), pl.col("_bad").sum())
            .collect(engine="streaming")
        )
    except (pl.exceptions.PolarsError, OSError):
        return None
    if grouped.height == 0 or grouped["_bad"].sum():
        return None
    return grouped.select("raw", ZERO)


def _as_int(values: pl.Expr, dtype: pl.DataType) -> pl.Expr | None:
    """A whole-number column as Int64 (null where it is not one); None for a type to doubt."""
    if dtype.is_integer():
        return values.cast(pl.Int64, strict=False)
    if dtype.is_float():
        return pl.when(values.is_finite() & (values == values.floor())).then(
            values.cast(pl.Int64, strict=False)
        )
    if dtype == pl.String:
        return values.str.strip_chars().cast(pl.Int64, strict=False)
    return None


def _whole(values: pl.Series, path: Path, fmt: str, column: str) -> pl.Series:
    """Whole numbers >= 0, or an InputError naming the first bad line."""
    if values.dtype.is_float():
        whole = values.is_finite() & (values == values.floor())
        parsed = values.cast(pl.Int64, strict=False).zip_with(
            whole.fill_null(False), pl.Series([None], dtype=pl.Int64)
        )
    else:
        parsed = values.cast(pl.Utf8).str.strip_chars().cast(pl.Int64, strict=False)
    bad = parsed.is_null() | (parsed < 0)
    if bad.any():
        first = as_int(bad.arg_max())
        raise InputError(
            path,
            f"{column} must be a whole number of at least 0, found {values[first]!r}",
            column=column,
            **location(fmt, first, path),
        )
    return parsed.alias(column)


def with_zero_clicks(labels: pl.DataFrame, zero: pl.DataFrame) -> pl.DataFrame:
    """``labels`` with the ``zero_click`` column (0 for a query the clicks never name)."""
    return (
        labels.drop(ZERO, strict=False)
        .join(zero, on="query", how="left")
        .with_columns(pl.col(ZERO).fill_null(0).cast(pl.Int64))
    )


@dataclass(frozen=True)
class ZeroClickShare:
    stratum: str
    occurrences: int
    zero_click: int

    @property
    def share(self) -> float:
        return self.zero_click / self.occurrences if self.occurrences else float("nan")

    def to_json(self) -> dict[str, Any]:
        return {
            "stratum": self.stratum,
            "occurrences": self.occurrences,
            "zero_click": self.zero_click,
            "share": self.share if self.occurrences else None,
        }


def shares_by_stratum(labels: pl.DataFrame) -> list[ZeroClickShare]:
    """Per stratum (by occurrences, descending; then name), then ``(all)``: searches, zero-click
    searches and their share."""
    table = (
        labels.group_by("stratum")
        .agg(pl.col("count").sum().alias("occ"), pl.col(ZERO).sum().alias("zero"))
        .sort(["occ", "stratum"], descending=[True, False])
    )
    rows = [ZeroClickShare(str(s), int(o), int(z)) for s, o, z in table.iter_rows()]
    total = ZeroClickShare(
        "(all)", sum(r.occurrences for r in rows), sum(r.zero_click for r in rows)
    )
    return [*rows, total]


def recurring(
    labels: pl.DataFrame, at_least: int = RECURRING, limit: int | None = 20
) -> pl.DataFrame:
    """``query, stratum, count, zero_click`` of queries with ``at_least`` zero-click searches,
    the most zero-click first (ties by query)."""
    out = (
        labels.filter(pl.col(ZERO) >= at_least)
        .sort([ZERO, "query"], descending=[True, False])
        .select("query", "stratum", "count", ZERO)
    )
    return out.head(limit) if limit is not None else out


def recurring_across(old: pl.DataFrame, new: pl.DataFrame) -> pl.DataFrame:
    """Queries zero-click in both logs: ``query, stratum`` (the new one's), ``zero_old``,
    ``zero_new``; most zero-click searches (both logs) first."""
    both = (
        old.filter(pl.col(ZERO) > 0)
        .select("query", zero_old=pl.col(ZERO))
        .join(
            new.filter(pl.col(ZERO) > 0).select("query", "stratum", zero_new=pl.col(ZERO)),
            on="query",
            how="inner",
        )
    )
    return both.sort(
        [pl.col("zero_old") + pl.col("zero_new"), "query"], descending=[True, False]
    ).select("query", "stratum", "zero_old", "zero_new")


def read_labels_with_clicks(path: str | Path) -> pl.DataFrame | None:
    """LABELS with its ``zero_click`` column as whole numbers (None: the labels have none)."""
    from goldset_tui.sampling.labels import read_labels

    p = Path(path)
    labels = read_labels(p)
    if ZERO not in labels.columns:
        return None
    return labels.with_columns(_whole(labels.get_column(ZERO), p, table_format(p), ZERO))


def zero_click_changes(old: pl.DataFrame, new: pl.DataFrame) -> list[dict[str, Any]]:
    """Per stratum (and ``(all)``), the zero-click share of its searches in the old and the new
    labels, the change with Newcombe's interval and the z-test's p (Holm over the strata), as
    ``drift.shares`` compares traffic shares."""
    from goldset_tui.drift.shares import newcombe_difference, two_proportion_p
    from goldset_tui.eval.stats import holm

    before = {s.stratum: s for s in shares_by_stratum(old)}
    after = {s.stratum: s for s in shares_by_stratum(new)}
    names = [s for s in before if s != "(all)"] + [s for s in after if s not in before]
    names.append("(all)")
    rows: list[dict[str, Any]] = []
    for s in names:
        a = before.get(s, ZeroClickShare(s, 0, 0))
        b = after.get(s, ZeroClickShare(s, 0, 0))
        rows.append(
            {
                "stratum": s,
                "old": a.to_json(),
                "new": b.to_json(),
                "change": b.share - a.share if a.occurrences and b.occurrences else None,
                "ci95": list(
                    newcombe_difference(b.zero_click, b.occurrences, a.zero_click, a.occurrences)
                ),
                "p_value": two_proportion_p(
                    b.zero_click, b.occurrences, a.zero_click, a.occurrences
                ),
            }
        )
    # Holm over the strata, not the (all) row, which is their sum, not another question.
    adjusted = holm([r["p_value"] for r in rows[:-1]])
    for r, q in zip(rows, [*adjusted, float("nan")], strict=True):
        r["p_holm"] = q
    for r in rows:
        for key in ("p_value", "p_holm"):
            if r[key] != r[key]:
                r[key] = None
        r["ci95"] = [x if x == x else None for x in r["ci95"]]
    return rows
