"""Blind repeats: already-judged pairs served again, unannounced, every ``repeat_every``
judgments, to measure a labeller's self-consistency. A repeat is recorded as kind "repeat" and
never replaces the first grade; moving away puts it back for later."""

from __future__ import annotations

from collections.abc import Sequence

from goldset_tui.judging.state import SessionState, Step, UndoEntry
from goldset_tui.model import Judgment

# A blind repeat (self-consistency check) comes back after this many ordinary judgments.
REPEAT_EVERY = 25


class RepeatingSession(SessionState):
    """The repeat queue and the detour to a repeat and back."""

    def _init_repeats(self, repeats: Sequence[tuple[str, str]], repeat_every: int) -> None:
        self._pending_repeats = [(q, d) for q, d in repeats if q in self._qindex]
        self._repeat_every = max(1, repeat_every)
        self._since_repeat = 0
        self.repeating: tuple[str, str] | None = None
        self._resume_at: tuple[int, int] | None = None

    def _serve_repeat(self) -> bool:
        if self._since_repeat < self._repeat_every or not self._pending_repeats:
            return False
        for i, (query_id, doc_id) in enumerate(self._pending_repeats):
            if query_id != self.query_id:  # not while the query is fresh in the labeller's mind
                self._resume_at = (self.qi, self.pos)
                self.repeating = self._pending_repeats.pop(i)
                self._since_repeat = 0
                qi = self._qindex[query_id]
                self._land(qi, self._position_of(qi, doc_id))
                return True
        return False

    def _grade_repeat(self, grade: int) -> Step:
        assert self.repeating is not None and self._resume_at is not None
        t = self._clock()
        query_id, doc_id = self.repeating
        judgment = Judgment(
            self.labeller,
            query_id,
            doc_id,
            grade,
            self._now(),
            seconds=round(t - self._shown_since, 3),
            position=self.pos,
            kind="repeat",
        )
        if self.writer is not None:
            self.writer.record(judgment)
        self._undo.append(UndoEntry(query_id, doc_id, None, "repeat"))
        self._pace.add(t)
        self.repeating = None
        qi, pos = self._resume_at
        self._resume_at = None
        self._land(qi, pos)
        return Step(judgment, moved_query=True, all_done=self.judged_count >= self.total)

    def _leave_repeat(self) -> bool:
        """Put an unanswered repeat back for later and return to where the labeller was."""
        if self.repeating is None or self._resume_at is None:
            return False
        self._pending_repeats.insert(0, self.repeating)
        self.repeating = None
        qi, pos = self._resume_at
        self._resume_at = None
        self._land(qi, pos)
        return True

    @property
    def pending_repeats(self) -> int:
        return len(self._pending_repeats) + (self.repeating is not None)

    def _undo_repeat(self, query_id: str, doc_id: str) -> Step:
        # The store cancels the pair's most recent grade: the repeat. Serve it again.
        if self.writer is not None:
            self.writer.undo(query_id, doc_id)
        self._undo.pop()
        qi = self._qindex[query_id]
        self._resume_at = (self.qi, self.pos)
        self.repeating = (query_id, doc_id)
        pos = self._position_of(qi, doc_id)
        moved = qi != self.qi
        self._land(qi, pos)
        judgment = Judgment(
            self.labeller, query_id, doc_id, None, self._now(), position=pos, kind="undo"
        )
        return Step(judgment, moved_query=moved)
