"""Write a TREC run in trec_eval's order, with scores printed to a fixed 6 decimals.

A fixed format (rather than Python's shortest float repr) keeps rebuilt files byte-identical.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl


def ranked(run: pl.DataFrame) -> pl.DataFrame:
    """Ranks 1-based: score descending, ties by document id descending, as trec_eval reads a run."""
    return run.sort(["query_id", "score", "doc_id"], descending=[False, True, True]).with_columns(
        pl.int_range(1, pl.len() + 1).over("query_id").alias("rank")
    )


def write_run(run: pl.DataFrame, path: Path, tag: str) -> None:
    """``qid Q0 docid rank score tag``, one line per (query, document)."""
    rows = ranked(run).select("query_id", "doc_id", "rank", "score").iter_rows()
    path.write_text(
        "".join(f"{q} Q0 {d} {r} {s:.6f} {tag}\n" for q, d, r, s in rows), encoding="utf-8"
    )
