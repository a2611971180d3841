"""Read a LABELS table (``query``, ``count``, ``stratum``; any other columns are kept as they are).

Users can bring their own labels: any CSV/TSV/Parquet/JSONL with those three columns. Every distinct
query must sit in exactly one stratum, so a repeated query is an error naming both lines.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.io.tables import location, location_text, read_table, table_format
from goldset_tui.sampling.normalise import parse_counts
from goldset_tui.scalar import as_int

REQUIRED = ("query", "count", "stratum")


def read_labels(path: str | Path) -> pl.DataFrame:
    p = Path(path)
    df = read_table(
        p, required=REQUIRED, non_empty=("query", "stratum"), string_columns=("query", "stratum")
    )
    fmt = table_format(p)
    df = df.with_columns(parse_counts(df.get_column("count"), p, fmt))
    repeated = df.get_column("query").is_duplicated()
    if repeated.any():
        second = as_int((repeated & ~df.get_column("query").is_first_distinct()).arg_max())
        query = df.get_column("query")[second]
        first = int((df.get_column("query") == query).arg_max())
        first_at = location_text(fmt, first, p)
        raise InputError(
            p,
            f"query {query!r} appears again (first at {first_at}); every distinct query must be in exactly one stratum",
            column="query",
            **location(fmt, second, p),
        )
    return df
