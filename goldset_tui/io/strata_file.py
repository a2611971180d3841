"""One stratum per query: the check every reader of a strata file (``query_id, stratum``, with
an optional ``doc_id``) shares.

Strata partition the queries (docs/background.md#table-closure). A query listed under two strata
would be counted in both (the report's n would no longer sum to the query count), or, joined as it
is, the first line would silently win; either way a number changes without a word. The file is
refused instead, naming both lines, so the person who wrote it can choose. The same query listed
twice under the same stratum is no contradiction and passes.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.io.tables import location, location_text, table_format


def refuse_two_strata(table: pl.DataFrame, path: Path) -> None:
    """InputError on the first row giving a query (with ``doc_id``: a pair) a second stratum,
    naming that row and the row where the first stratum was given."""
    key = ["query_id", "doc_id"] if "doc_id" in table.columns else ["query_id"]
    indexed = table.select(*key, "stratum").with_row_index("_i")
    first = indexed.group_by(key, maintain_order=True).agg(
        pl.col("stratum").first().alias("_first"), pl.col("_i").first().alias("_first_i")
    )
    clash = indexed.join(first, on=key).filter(pl.col("stratum") != pl.col("_first"))
    if not clash.height:
        return
    row = clash.sort("_i").row(0, named=True)
    fmt = table_format(path)
    what = " ".join(f"{k} {row[k]!r}" for k in key)
    raise InputError(
        path,
        f"{what} is in stratum {row['_first']!r} on {location_text(fmt, row['_first_i'], path)}"
        f" and in {row['stratum']!r} here; give each one stratum",
        column="stratum",
        **location(fmt, row["_i"], path),
    )
