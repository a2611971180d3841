"""One background thread that saves grades in the order given, so the judging screen can show the
next candidate while the journal's fsync runs (the disk is off the key's path).

Nothing here says "saved": a grade is saved when ``settled()`` reports it without an error, that
is after the writer's ``record`` (write + fdatasync) returned. A failed save is reported, never
dropped, and the grades queued behind it are reported as not saved without being tried, so the
journal never holds a later grade without the earlier one the labeller gave before it. Every other
call (undo, note, a batch, close) first waits for the queue, so it lands after every pending grade.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any

from goldset_tui.model import Judgment


class EarlierSaveFailed(RuntimeError):
    """A grade queued behind one whose save failed: not tried, so not saved."""


class OrderedWriter:
    def __init__(self, writer: Any, on_settled: Callable[[], None] = lambda: None) -> None:
        self.writer = writer
        self._on_settled = on_settled  # called from the writer thread after each grade settles
        self._queue: queue.Queue[tuple[int, Judgment] | None] = queue.Queue()
        self._cond = threading.Condition()
        self._settled: list[tuple[int, Judgment, Exception | None]] = []
        self._submitted = 0
        self._finished = 0
        self._fail_through = 0  # grades with a ticket up to this one are not tried
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="goldset-save", daemon=True)
        self._thread.start()

    # ----- queued grades --------------------------------------------------------------------
    def submit(self, judgment: Judgment) -> int:
        """Queue a grade; returns its ticket (1, 2, ...). Saved only once settled without error."""
        with self._cond:
            if self._closed:
                raise RuntimeError("the store is closed")
            self._submitted += 1
            ticket = self._submitted
        self._queue.put((ticket, judgment))
        return ticket

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            ticket, judgment = item
            error: Exception | None = None
            if ticket <= self._fail_through:
                error = EarlierSaveFailed("not saved: an earlier grade's save failed")
            else:
                try:
                    self.writer.record(judgment)  # durable when it returns
                except Exception as exc:  # reported to the screen, never dropped
                    error = exc
                    with self._cond:
                        self._fail_through = self._submitted
            with self._cond:
                self._settled.append((ticket, judgment, error))
                self._finished += 1
                self._cond.notify_all()
            # Telling the screen is a courtesy; saving is the job. The screen's post can fail once
            # the app has closed (a late settle), and a dead thread would leave every grade
            # queued behind it unsaved and drain() waiting forever.
            with contextlib.suppress(Exception):
                self._on_settled()

    @property
    def pending(self) -> int:
        with self._cond:
            return self._submitted - self._finished

    def drain(self) -> None:
        """Wait until every queued grade is settled (saved or failed)."""
        with self._cond:
            self._cond.wait_for(lambda: self._finished >= self._submitted)

    def settled(self) -> list[tuple[int, Judgment, Exception | None]]:
        """The grades settled since the last call, in order: (ticket, judgment, error or None)."""
        with self._cond:
            out, self._settled = self._settled, []
        return out

    # ----- everything else waits for the queue ----------------------------------------------
    def record(self, judgment: Judgment) -> int:
        self.drain()
        return int(self.writer.record(judgment))

    def record_many(self, judgments: list[Judgment]) -> list[int]:
        self.drain()
        return list(self.writer.record_many(judgments))

    def undo(self, query_id: str, doc_id: str) -> int | None:
        self.drain()
        answer = self.writer.undo(query_id, doc_id)
        return answer if isinstance(answer, int) and not isinstance(answer, bool) else None

    def undo_many(self, pairs: list[tuple[str, str]]) -> list[int | None]:
        self.drain()
        return list(self.writer.undo_many(pairs))

    def note(self, query_id: str, doc_id: str, text: str) -> None:
        self.drain()
        self.writer.note(query_id, doc_id, text)

    def flag(self, query_id: str, doc_id: str, reason: str) -> None:
        self.drain()  # after the grades queued before it, as the labeller gave them
        self.writer.flag(query_id, doc_id, reason)

    def skip(self, query_id: str, doc_id: str, reason: str) -> None:
        self.drain()
        self.writer.skip(query_id, doc_id, reason)

    def take_notice(self) -> str | None:
        take = getattr(self.writer, "take_notice", None)
        return take() if take is not None else None

    def close(self) -> None:
        """Save every queued grade, stop the thread, close the writer. Safe to call twice."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
        self._queue.put(None)
        self._thread.join()
        self.writer.close()
