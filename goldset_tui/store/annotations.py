"""Notes and flags beside the grades, for exports and adjudication.

A pair's note is its labeller's latest note (an empty note clears it); its flag is the reason of
its latest ``flag`` record (an empty reason unflags it), see frames.py. Over several labellers
(a consensus) each column joins the labellers' texts as ``name: text``, one per labeller, ``; ``
between, so nobody's remark is lost and each says whose it is.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from goldset_tui.store.frames import MARK_KINDS, PAIR, latest_marks

ANNOTATION_SCHEMA = {
    "query_id": pl.String,
    "doc_id": pl.String,
    "note": pl.String,
    "flag": pl.String,
}


def latest_notes(history: pl.DataFrame) -> pl.DataFrame:
    """labeller, query_id, doc_id, note: each pair's standing note (flags' and skips' reasons
    are not notes; an empty note cleared the ones before)."""
    noted = history.filter(pl.col("note").is_not_null() & ~pl.col("kind").is_in(MARK_KINDS))
    standing = noted.unique(PAIR, keep="last", maintain_order=True)
    return standing.filter(pl.col("note") != "").select(*PAIR, "note")


def notes_of(project: Any, labeller: str) -> dict[tuple[str, str], str]:
    """The labeller's standing note per pair (notes can be on pairs not judged yet), as the
    judging screen shows them: (query_id, doc_id) -> note."""
    history = project.judgments(labeller, history=True)
    rows = latest_notes(history).select("query_id", "doc_id", "note").rows()
    return {(q, d): note for q, d, note in rows}


def reasons_of(history: pl.DataFrame, kind: str) -> dict[tuple[str, str], str]:
    """(query_id, doc_id) -> the reason of one labeller's standing flag or skip (``kind``)."""
    rows = latest_marks(history, kind).select("query_id", "doc_id", "reason").rows()
    return {(q, d): reason for q, d, reason in rows}


def pair_annotations(history: pl.DataFrame, *, by_name: bool = False) -> pl.DataFrame:
    """query_id, doc_id, note, flag of every pair with a note or a flag in ``history`` (one
    labeller's, or several with ``by_name``: then each text is prefixed with its labeller)."""
    notes = latest_notes(history).rename({"note": "text"}).with_columns(what=pl.lit("note"))
    flags = (
        latest_marks(history, "flag").rename({"reason": "text"}).with_columns(what=pl.lit("flag"))
    )
    both = pl.concat([notes, flags])
    if both.height == 0:
        return pl.DataFrame(schema=ANNOTATION_SCHEMA)
    if by_name:
        both = both.with_columns(text=pl.concat_str("labeller", pl.lit(": "), "text"))
    joined = (
        both.sort("labeller", maintain_order=True)
        .group_by("query_id", "doc_id", "what", maintain_order=True)
        .agg(pl.col("text").str.join("; "))
        .pivot("what", index=["query_id", "doc_id"], values="text")
    )
    for column in ("note", "flag"):
        if column not in joined.columns:
            joined = joined.with_columns(pl.lit(None, pl.String).alias(column))
    return joined.select(list(ANNOTATION_SCHEMA)).cast(ANNOTATION_SCHEMA)  # type: ignore[arg-type]


def with_annotations(qrels: pl.DataFrame, history: pl.DataFrame, *, by_name: bool) -> pl.DataFrame:
    """``qrels`` (query_id, doc_id, grade) with the note and flag columns, null where none."""
    notes = pair_annotations(history, by_name=by_name)
    return qrels.join(notes, on=["query_id", "doc_id"], how="left", maintain_order="left")
