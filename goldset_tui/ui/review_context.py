"""What the review screens share: the report screen and its drill-down screens both take a
:class:`ReviewContext`. It lives below both so neither imports the other for it (the report
screen imports the drill-down only when a cell is opened)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl
from textual.app import App
from textual.screen import Screen

from goldset_tui.decisions.block import DecisionBlock
from goldset_tui.report.pipeline import Report


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
    # Whose grades are in force, for the header ("bob's grades", "consensus (uma)", "qrels
    # holes.qrels"), the key it was built from, and the other keys `l` cycles through (a store's
    # labellers and its consensus; none for a file).
    source: str | None = None
    source_key: str | None = None
    sources: list[str] = field(default_factory=list)
    # (source key, metric) -> (report, its source's words): recomputes on other grades or
    # another measure; None when the screens were given a report alone.
    rebuild: Callable[[str | None, str], tuple[Report, str]] | None = None
    judge_as: str | None = None  # whose grades J writes (--labeller), whatever is shown
    corpus: pl.DataFrame | None = None  # doc_id, text, title: the reading view's texts
    # Every labeller's grades in force (query_id, doc_id, labeller, grade), read when the reading
    # view first needs them and again after judging; None: only the grades in force are known.
    labelled: Callable[[], pl.DataFrame] | None = None
    store: str | None = None  # the store's folder, as given, for the commands the screens name
    consensus_key: str | None = None  # the key of `sources` that is the store's consensus
    out_dir: str | None = None  # where e writes (review -o); the current folder without one
    # The decision block of a report as the command asked it (review's --route, --precision...),
    # applied to every report the screens recompute; None: the default block.
    decide: Callable[[Report], DecisionBlock | None] | None = None
    _labelled: pl.DataFrame | None = field(default=None, repr=False)

    def apply(self, app: App, report: Report) -> None:
        """Put ``report`` in force on every review screen of ``app``'s stack."""
        self.report = report
        self._labelled = None  # judging (or another source) changed them: read again
        for screen in app.screen_stack:
            refresh = getattr(screen, "report_changed", None)
            if callable(refresh):
                refresh(report)

    def query_text(self, query_id: str) -> str | None:
        if self.topics is None:
            return None
        hit = self.topics.filter(pl.col("query_id") == query_id)
        return hit.get_column("query")[0] if hit.height else None

    def document(self, doc_id: str) -> tuple[str, str] | None:
        """(title, text) of ``doc_id`` from the corpus or pool given, None when nobody gave it."""
        if self.corpus is None:
            return None
        hit = self.corpus.filter(pl.col("doc_id") == doc_id)
        if not hit.height:
            return None
        row = hit.row(0, named=True)
        return row.get("title") or "", row.get("text") or ""

    def labellers_grades(self) -> pl.DataFrame | None:
        """Every labeller's grades (query_id, doc_id, labeller, grade); None without a store
        (a file's grades are the grade in force, which the screens show already)."""
        if self._labelled is None and self.labelled is not None:
            self._labelled = self.labelled()
        return self._labelled
