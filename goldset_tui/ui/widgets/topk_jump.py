"""The way from the agreement and adjudication screens to the review's top k view of a query.

The view needs runs and the consensus report on them (``app/query_view.py``); building it
evaluates every run, so it is built once in a worker thread, when the screen first needs it, and
again when a decision changes the consensus. A key pressed before it is ready opens the view when
it is. Without runs the screen says so in one line.
"""

from __future__ import annotations

import contextlib

import polars as pl
from textual.screen import Screen

from goldset_tui.agreement.sources import AgreementData
from goldset_tui.text import visible
from goldset_tui.ui.review_context import ReviewContext


class TopKJump:
    """Mixed into a screen with ``data`` (AgreementData); ``topk_runs`` are the runs given."""

    data: AgreementData
    topk_runs: dict[str, pl.DataFrame] | None = None
    topk_rule: str | None = None
    view: ReviewContext | None = None
    view_error: str | None = None
    _view_wanted: str | None = None  # the query to open once the view is ready
    _view_loading = False
    _view_generation = 0

    def load_view(self) -> None:
        """(Re)build the view's context in a worker; ``view_ready`` is told when it is done."""
        screen = self._screen()
        self._view_loading = True
        # A decision made while the runs are evaluated starts another build: only the last one's
        # context is taken (a thread cannot be stopped, and an older one may finish later).
        self._view_generation += 1
        generation = self._view_generation

        def build() -> None:
            from goldset_tui.app.query_view import NoRuns, consensus_view
            from goldset_tui.errors import InputError
            from goldset_tui.ui.opening import review_context

            try:
                setup = consensus_view(self.data, runs=self.topk_runs, rule=self.topk_rule)
                context = review_context(setup)
                error = None
            except (NoRuns, InputError) as exc:
                context, error = None, str(exc)
            with contextlib.suppress(RuntimeError):  # the app closed while the runs were read
                screen.app.call_from_thread(self._view_done, context, error, generation)

        screen.run_worker(build, thread=True, exclusive=True, group="topk-view")

    def _view_done(self, context: ReviewContext | None, error: str | None, generation: int) -> None:
        if generation != self._view_generation:
            return
        self.view, self.view_error, self._view_loading = context, error, False
        self.view_ready()
        wanted, self._view_wanted = self._view_wanted, None
        if wanted is not None:
            self.open_topk(wanted)

    def topk_queue(self) -> list[str]:
        """The queries n/p step through in the view: those of the screen's disagreements."""
        return []

    def view_ready(self) -> None:
        """A screen that shows something from the view refreshes it here."""

    def open_topk(self, query_id: str) -> None:
        """Every system's top k for ``query_id``, on the consensus grades."""
        screen = self._screen()
        if self.view is not None and not self._view_loading:  # never a view a decision aged
            from goldset_tui.ui.widgets.report_topk import TopKScreen

            ids = self.topk_queue()
            queue = (lambda: ids) if query_id in ids else None
            screen.app.push_screen(TopKScreen(self.view, query_id, queue=queue))
            return
        if self.view_error is not None and not self._view_loading:
            screen.notify(visible(self.view_error, keep_newlines=False), markup=False, timeout=8)
            return
        self._view_wanted = query_id
        if not self._view_loading:
            self.load_view()
        screen.notify("Evaluating the runs for the top k view…", timeout=2)

    def _screen(self) -> Screen:
        assert isinstance(self, Screen)
        return self
