"""Near-duplicate groups among a query's candidates (``goldset_tui.pooling.neardup``), computed when a
query is first asked about and kept with its view."""

from __future__ import annotations

import time

from goldset_tui.judging.state import SessionState, _QueryView
from goldset_tui.pooling import neardup


def _yield() -> None:
    time.sleep(0)  # releases the GIL: a thread waiting for it runs now


class DuplicateGroups(SessionState):
    def _dup_labels(self) -> list[int]:
        view = self._view(self.qi)
        if view.dup_label is None:
            view.dup_label = neardup.groups([r.get("text") for r in view.rows])
        return view.dup_label

    def preload(self, qi: int) -> _QueryView:
        """Query ``qi``'s view with its near-duplicate groups, built without touching the
        session's state: safe in a worker thread. Hand it to :meth:`adopt` on the UI thread.

        Finding near-duplicates is most of the cost of moving to a new query (a few ms of Polars
        joins); done ahead, while the labeller reads, the key that finishes a query costs no more
        than any other. The shingling runs in Python, holding the interpreter: between two
        texts it is handed over (``time.sleep(0)``), so a key arriving meanwhile waits for one
        text's shingles, not for the interpreter's switch interval (5 ms)."""
        view = self._load_view(qi)
        view.dup_label = neardup.groups([r.get("text") for r in view.rows], between=_yield)
        return view

    def duplicates_of(self, pos: int | None = None) -> list[int]:
        """Shown positions of the other members of the candidate's near-duplicate group."""
        pos = self.pos if pos is None else pos
        labels = self._dup_labels()
        return [i for i, label in enumerate(labels) if label == labels[pos] and i != pos]
