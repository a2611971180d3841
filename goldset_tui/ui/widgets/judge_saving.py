"""Saving off the key's path: the next candidate is shown at once while a background writer
(``store/ordered.py``) writes and fsyncs the grade, in order.

The saved cell says "saving…" until the fsync of that grade returned, and "✓ saved" only then
(no judgment is ever shown as saved before it is on disk). A failed save is shown at once: the
grade is taken back (it does not count), the labeller is brought back to that candidate, and the
saved cell says NOT SAVED. Undo, and leaving, first wait for every pending grade.

Leaving (back, home, quit) waits with the screen still drawing: the status line says how many
grades are still on their way to the disk, and if one of them fails the screen stays, its store
open, with the labeller on that candidate (``settle_before_leaving``; the app calls it).
"""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual.message import Message

from goldset_tui.judging import JudgingSession
from goldset_tui.store.ordered import EarlierSaveFailed, OrderedWriter
from goldset_tui.text import visible
from goldset_tui.ui.widgets.judge_host import Base


class SavesSettled(Message):
    """The background writer finished one or more grades (posted from its thread)."""


class BackgroundSaving(Base):
    """Mixin for the judging screen; what it uses of the screen: ``judge_host.JudgingHost``
    (the session, the status bar, the writer and the clock, say, refresh_view)."""

    _save_failures: int = 0  # failed saves shown so far (a leave that waited compares them)
    _waiting_to_leave: bool = False
    _writer_closed: bool = False  # set by the screen's flush
    _pending_label: tuple[object, str] | None = None  # (judgment, its label while saving)

    @property
    def left(self) -> bool:
        """The screen was left for good: every grade settled and the store closed (``flush``)."""
        return self._writer_closed

    def start_background_saving(self, session: JudgingSession) -> None:
        if session.writer is None or hasattr(session.writer, "submit"):
            return
        post = self.post_message  # thread-safe in Textual

        def settled() -> None:
            post(SavesSettled())

        session.writer = OrderedWriter(session.writer, on_settled=settled)

    def _drawn(self) -> bool:
        """False once the app has exited: a grade settling late, or ``flush()`` called after
        ``run_app`` returned, then only updates the state (nothing to draw, no app to ask)."""
        return bool(self.is_attached)

    def saved_text(self, message: str) -> Text:
        # Saved, but the writer may have one thing to say (a full disk that stopped compaction).
        if self._drawn() and (notice := getattr(self.writer, "take_notice", lambda: None)()):
            self.notify(visible(notice), severity="warning", markup=False, timeout=30)
        # The clock only when there is room: at 80 columns the progress needs the space.
        wide = self._drawn() and (self.size.width or 80) >= 100
        when = f" {self.clock():%H:%M:%S}" if wide else ""
        return Text(f"\u2713 saved {message}{when}", style="bold green")

    def not_saved(self, exc: Exception) -> None:
        reason = visible(exc, keep_newlines=False)  # an OS error can quote a path from the data
        self.status_bar.saved = Text(f"\u2717 NOT SAVED: {reason}", style="bold white on red")
        if self._drawn():
            self.notify(f"Not saved: {reason}", severity="error", markup=False, timeout=10)
            self.refresh_view()

    def label_pending(self, judgment: object, label: str) -> None:
        """How the saved cell names ``judgment`` once saved (a correction: "#7: 1 → 2")."""
        self._pending_label = (judgment, label)

    def saving_text(self, label: str) -> Text:
        # As wide as "✓ saved " so the cell does not need a layout pass when it turns to saved.
        return Text(f"saving\u2026 {label}", style="bold yellow")

    def on_saves_settled(self, _message: SavesSettled) -> None:
        self.settle_saves()
        if self._waiting_to_leave:
            self._say_waiting()

    def _say_waiting(self) -> None:
        n = self.session.unsaved if self.session is not None else 0
        if n:
            grades = "grade" if n == 1 else "grades"
            self.say(f"Waiting for {n:,} {grades} to reach the disk before leaving\u2026")

    async def settle_before_leaving(self) -> bool:
        """Wait for every grade still on its way to the disk, saying so in the status line while
        the screen keeps drawing (a slow disk can take seconds). False if one of them failed: it
        is shown (NOT SAVED, the labeller back on it) and the screen should stay, store open."""
        s = self.session
        drain = getattr(s.writer, "drain", None) if s is not None else None
        if drain is None:
            return True
        failures = self._save_failures
        if s is not None and s.unsaved:
            self._waiting_to_leave = True
            self._say_waiting()
            try:
                await asyncio.to_thread(drain)
            finally:
                self._waiting_to_leave = False
        ok = self.settle_saves()
        if ok and self._save_failures == failures:
            self.clear_message()  # the waiting line goes; the saved cell says the rest
            return True
        self.say(
            "Stayed: a grade was not saved (see NOT SAVED); grade it again, or leave again without it.",
            seconds=30,
        )
        return False

    def settle_saves(self) -> bool:
        """Show what the background writer finished; False if a grade failed to save."""
        s = self.session
        if s is None:
            return True
        saved, failed = s.settle()
        if failed:
            self._save_failures += len(failed)
            if all(isinstance(exc, EarlierSaveFailed) for _j, exc in failed):
                # Grades given after a failed one, settled after it was shown: the failure's own
                # NOT SAVED stays (it names the cause); these are only counted, not re-announced.
                if self._drawn():
                    n = len(failed)
                    self.notify(
                        f"{n:,} grade{'s' if n > 1 else ''} given after it not saved either",
                        severity="error",
                        markup=False,
                        timeout=10,
                    )
                return False
            judgment, exc = failed[0]
            more = f" (and {len(failed) - 1} after it)" if len(failed) > 1 else ""
            self.not_saved(
                OSError(
                    f"grade {judgment.grade} for #{(judgment.position or 0) + 1} of "
                    f"{judgment.query_id}{more}: {exc}; grade it again"
                )
            )
            return False
        if saved and s.unsaved == 0:
            last = saved[-1]
            pending = self._pending_label
            label = f"#{(last.position or 0) + 1}={last.grade}"
            if pending is not None and pending[0] is last:
                label = pending[1]
            self.status_bar.saved = self.saved_text(label)  # drawn by the bar
        return True

    def wait_for_saves(self) -> bool:
        """Wait for every pending grade (before undo or leaving); False if one failed."""
        s = self.session
        drain = getattr(s.writer, "drain", None) if s is not None else None
        if drain is None:
            return True
        drain()
        return self.settle_saves()
