"""What the review screens share: the report screen and its drill-down screens both take a
:class:`ReviewContext`. It lives below both so neither imports the other for it (the report
screen imports the drill-down only when a cell is opened)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl
from textual.screen import Screen

from goldset_tui.eval.report import Report


@dataclass
class ReviewContext:
    """What the review screens share. ``judge(pairs)`` opens judging on a pool of (query_id,
    doc_id) pairs and returns a screen to push, or a message saying where the pairs went."""

    report: Report
    topics: pl.DataFrame | None = None  # query_id, query
    judge: Callable[[pl.DataFrame], Screen | str] | None = None
    sampling_closure: list[dict] | None = None
    sampling_source: str | None = None
    on_judged: Callable[[], Report | None] | None = None  # recompute after judging
    # What the store said when it opened (a torn journal tail cut and kept...): shown with the
    # report's own warnings.
    store_warnings: list[str] = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    def query_text(self, query_id: str) -> str | None:
        if self.topics is None:
            return None
        hit = self.topics.filter(pl.col("query_id") == query_id)
        return hit.get_column("query")[0] if hit.height else None
