"""Topics (query id, query text, optional stratum) for ``goldset pool``: BEIR ``queries.jsonl``,
a table with ``query_id``/``query`` columns, or a TSV ``qid<TAB>text``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.io.pool_checks import _check_values
from goldset_tui.io.pool_schema import _WHERE
from goldset_tui.io.tables import check_file, first_bad_utf8, read_table, table_format
from goldset_tui.sampling.origin import ORIGIN

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
    # A query's origin (real or synthetic: sampling/origin.py) travels into the pool with it.
    kept = ("query_id", "query", "stratum", *([ORIGIN] if ORIGIN in df.columns else []))
    try:
        df = df.select(*(pl.col(c).cast(pl.Utf8) for c in kept), _WHERE)
    except pl.exceptions.PolarsError:
        raise InputError(p, "query_id, query, stratum and origin must be text") from None
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
    # A UTF-8 byte-order mark (Windows editors add one) is not part of the first query's id.
    data = p.read_bytes().removeprefix(b"\xef\xbb\xbf")
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
