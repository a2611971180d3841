"""What `goldset judge` reads back from the labeller's history in the store before the screen
opens: the latest note of each pair, and the standing flags and skips with their reasons (a flag's
or skip's reason is kept in the note column, see store/frames.py)."""

from __future__ import annotations

from typing import Any


def latest_notes(project: Any, labeller: str) -> dict[tuple[str, str], str]:
    """The labeller's latest note per pair (notes can be on pairs not judged yet); "" clears.
    A flag's or a skip's reason is in the note column too, and is not a note."""
    import polars as pl

    from goldset_tui.store.frames import MARK_KINDS

    history = project.judgments(labeller, history=True)
    noted = history.filter(pl.col("note").is_not_null() & ~pl.col("kind").is_in(MARK_KINDS)).unique(
        ["query_id", "doc_id"], keep="last", maintain_order=True
    )
    return {(q, d): n for q, d, n in noted.select("query_id", "doc_id", "note").rows() if n}


def latest_reasons(history: Any, kind: str) -> dict[tuple[str, str], str]:
    """(query_id, doc_id) -> the reason of the labeller's standing flag or skip (``kind``)."""
    from goldset_tui.store.frames import latest_marks

    rows = latest_marks(history, kind).select("query_id", "doc_id", "reason").rows()
    return {(q, d): reason for q, d, reason in rows}
