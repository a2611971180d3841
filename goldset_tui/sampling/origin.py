"""Where a query came from: ``real`` (a person typed it: a log, a hand-written topic) or
``synthetic`` (a model wrote it: ``goldset synth``).

Synthetic queries score higher than real ones on the same system (they borrow the document's
words: docs/sampling.md, "Synthetic queries"), so a score over a mix of the two is not a score of
real traffic. The ``origin`` column carries the difference from ``goldset synth`` through
``classify`` (labels), ``sample draw`` (the sample keeps every label column), ``pool --topics``
(each candidate) and ``report --strata`` (a column per query and a line in the header), so a
report says when it mixes them. A file without the column is real traffic, as it always was.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import polars as pl

ORIGIN = "origin"
REAL = "real"
SYNTHETIC = "synthetic"
ORIGINS = (REAL, SYNTHETIC)


def origin_expr() -> pl.Expr:
    """A query's origin from its occurrences: synthetic only when every occurrence is (a query
    a person also typed is real traffic, whatever a model wrote too)."""
    synthetic = pl.col(ORIGIN).cast(pl.Utf8).str.strip_chars().str.to_lowercase() == SYNTHETIC
    return (
        pl.when(synthetic.fill_null(False).all())
        .then(pl.lit(SYNTHETIC))
        .otherwise(pl.lit(REAL))
        .alias(ORIGIN)
    )


def normalised_origin(column: pl.Series) -> pl.Series:
    """``synthetic`` where the value says so (any case, spaces around), else ``real``."""
    text = column.cast(pl.Utf8).str.strip_chars().str.to_lowercase()
    return (
        pl.select(
            pl.when(text == SYNTHETIC).then(pl.lit(SYNTHETIC)).otherwise(pl.lit(REAL)).alias(ORIGIN)
        )
        .to_series()
        .alias(ORIGIN)
    )


def origin_line(origins: pl.Series) -> str | None:
    """The report's header line when any query is synthetic (None: all real, say nothing)."""
    synthetic = int((origins == SYNTHETIC).sum())
    if synthetic == 0:
        return None
    real = origins.len() - synthetic
    if real == 0:
        return (
            f"origin: all {synthetic} queries are synthetic (written by a model, not typed by "
            "users): scores on them run higher than on real traffic"
        )
    return (
        f"origin: {synthetic} synthetic and {real} real queries mixed: synthetic queries score "
        "higher than real traffic; compare the two by the origin column"
    )


def has_origin_column(path: str | Path) -> bool:
    """Whether a log table names an ``origin`` column, read from its header alone (a plain text
    log, one query per line, has none): a log without it costs nothing more to classify."""
    from goldset_tui.io.tables import JSONL_SUFFIXES, PARQUET_SUFFIXES, TEXT_FORMATS

    p = Path(path)
    suffix = p.suffix.lower()
    try:
        if suffix in PARQUET_SUFFIXES:
            return ORIGIN in pl.read_parquet_schema(p)
        if suffix in TEXT_FORMATS or suffix in JSONL_SUFFIXES:
            with p.open("rb") as handle:
                head = handle.readline(1 << 20).removeprefix(b"\xef\xbb\xbf")
            text = head.decode("utf-8", errors="replace")
            if suffix in JSONL_SUFFIXES:
                first = json.loads(text) if text.strip() else None
                return isinstance(first, dict) and ORIGIN in first
            fields = next(csv.reader([text], delimiter=TEXT_FORMATS[suffix]), [])
            return ORIGIN in [f.strip() for f in fields]
    except (OSError, ValueError, pl.exceptions.PolarsError):
        return False  # the log's own reader names what is wrong
    return False


def query_origins(path: str | Path) -> pl.DataFrame:
    """``query, origin`` per distinct normalised query of a log table with an ``origin``
    column (see :func:`origin_expr`); and ``query_id`` (its first) when the table has one, as
    the file ``goldset synth`` writes does: `sample draw` then keeps those ids, so the sample's
    queries are the ones ``synth``'s expected-relevant qrels name."""
    from goldset_tui.io.tables import read_table
    from goldset_tui.sampling.normalise import normalise

    table = read_table(Path(path), required=("query", ORIGIN), string_columns=("query", ORIGIN))
    ids = ["query_id"] if "query_id" in table.columns else []
    return (
        table.select(normalise(pl.col("query")).alias("query"), ORIGIN, *ids)
        .group_by("query", maintain_order=True)
        .agg(origin_expr(), *(pl.col(c).cast(pl.Utf8).first() for c in ids))
    )
