"""What a loaded pool holds (the columns and their types) and what its readers share."""

from __future__ import annotations

from typing import Any

import polars as pl

from goldset_tui.io.trec import QRELS_SCHEMA

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

PRIOR_SCHEMA = QRELS_SCHEMA  # a pool's own judgments are qrels

# Internal: where each row came from, for error messages (a line, or a Parquet row).
_WHERE = "_where"

_SHOW_IDS = 5


def _short_repr(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
