"""Keeping keys fast on a big pool: the next query is loaded ahead, and the heap settles after
the pool is indexed.

The key that finishes a query used to cost several times an ordinary one (its candidates sliced
from the pool, put in the labeller's blind order, and above all their near-duplicate groups found),
and that was the tail of keypress-to-screen on a million-row pool (``bench/judge_keys.py``). Now,
whenever the screen lands in a query, a worker thread builds the view of the query that comes
after it (``JudgingSession.preload``: it reads only what never changes, and most of its time is in
Polars, which runs without the GIL) and the UI thread adopts it. The worker starts after the frame
of the key that landed there has been drawn, so it never competes with that frame for the GIL.
Nothing is saved here: grading, and its fsync before "saved", are untouched.

After a large pool is indexed the objects created so far (the app, the index) will live as long
as the session: ``gc.freeze`` moves them out of the collector's way, so the full collections that
happen now and then while judging do not walk them again (a pause of tens of ms, otherwise).
"""

from __future__ import annotations

import contextlib
import gc

from textual import work

from goldset_tui.judging import JudgingSession
from goldset_tui.ui.widgets.judge_host import Base

# Below this many candidates the heap is small and collections are quick: leave gc alone.
FREEZE_FROM_ROWS = 100_000


class Prefetch(Base):
    """Mixin for the judging screen (which provides the session: ``judge_host.JudgingHost``)."""

    _prefetched_after: int | None = None  # the query whose successor was last loaded ahead

    def prefetch_upcoming(self) -> None:
        s = self.session
        if s is None or self._prefetched_after == s.qi:
            return
        self._prefetched_after = s.qi
        upcoming = s.upcoming_query()
        if upcoming is not None and not s.is_loaded(upcoming):
            # Started once this key's frame is drawn: begun inside the key, the worker's Python
            # (near-duplicate shingles) took the GIL from the UI thread while it drew the new
            # query, the slowest frame there is.
            self.call_after_refresh(self._preload, s, upcoming)

    @work(thread=True, exclusive=True, group="prefetch", exit_on_error=False)
    def _preload(self, session: JudgingSession, qi: int) -> None:
        view = session.preload(qi)
        with contextlib.suppress(RuntimeError):  # the app closed meanwhile: nothing to keep
            self.app.call_from_thread(session.adopt, qi, view)

    def settle_heap(self) -> None:
        """Freeze what exists after a large pool is indexed (see the module docstring)."""
        if self.session is not None and self.session.total >= FREEZE_FROM_ROWS:
            gc.collect()
            gc.freeze()
