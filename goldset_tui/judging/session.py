"""The judging session: what a key does. A grade is saved through the writer first, then the
cursor moves to the next unjudged candidate (later in this query, then earlier, then the next
unfinished query), serving a blind repeat when one is due; undo goes back to the candidate."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import polars as pl

from goldset_tui.judging.adaptive import adaptive_next, relevant_from
from goldset_tui.judging.duplicates import DuplicateGroups
from goldset_tui.judging.order import utc_now
from goldset_tui.judging.repeats import REPEAT_EVERY, RepeatingSession
from goldset_tui.judging.state import Step, Writer
from goldset_tui.model import GradeScale, Judgment

# A near-duplicate group is saved in batches of this many judgments, one fsync each: 50,000 alike
# candidates took 266 s at one fsync per judgment. Progress is reported after each batch.
GROUP_BATCH = 1000


class JudgingSession(RepeatingSession, DuplicateGroups):
    """State of one labeller judging one pool.

    ``frame`` is the pool (``query_id, query, doc_id, text`` + optional ``title, stratum, systems,
    ranks``); ``judged`` the labeller's latest grades (``query_id, doc_id, grade``; null grades are
    undone and count as unjudged); ``query_ids`` restricts and orders the queries (an assignment).
    """

    def __init__(
        self,
        frame: pl.DataFrame,
        labeller: str,
        *,
        writer: Writer | None = None,
        judged: pl.DataFrame | None = None,
        scale: GradeScale | None = None,
        query_ids: Sequence[str] | None = None,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], str] = utc_now,
        repeats: Sequence[tuple[str, str]] = (),
        repeat_every: int = REPEAT_EVERY,
        notes: dict[tuple[str, str], str] | None = None,
        order: str = "blind",
    ) -> None:
        super().__init__(
            frame,
            labeller,
            writer=writer,
            judged=judged,
            scale=scale,
            query_ids=query_ids,
            clock=clock,
            now=now,
        )
        self._notes = dict(notes or {})  # (query_id, doc_id) -> the latest note
        # Self-consistency: already-judged pairs served again, blind, every ``repeat_every``
        # judgments, recorded as kind "repeat" (they never replace the first grade).
        self._init_repeats(repeats, repeat_every)
        if (
            order == "adaptive"
        ):  # the bandit picks each query's next candidate (judging/adaptive.py)
            threshold = relevant_from(self.scale.min)
            self.picker = lambda rows, grades: adaptive_next(rows, grades, threshold)
        self.resume()

    @property
    def current_grade(self) -> int | None:
        if self.repeating is not None:
            return None  # blind: the first grade is not shown
        return self.grade_at(self.pos)

    def grades_in_query(self) -> list[int | None]:
        view = self._view(self.qi)
        if self.repeating is not None:
            return [None] * len(view.rows)
        return [view.grades.get(r["doc_id"]) for r in view.rows]

    # ----- moving ---------------------------------------------------------------------------
    def move(self, delta: int) -> None:
        if self._leave_repeat():
            return  # moving away from a repeat goes back to where the labeller was
        self._land(self.qi, max(0, min(self.size - 1, self.pos + delta)))

    def next_query(self, delta: int = 1) -> None:
        self._leave_repeat()
        qi = max(0, min(len(self.query_ids) - 1, self.qi + delta))
        if qi != self.qi:
            pos = self.first_unjudged_in(qi)
            self._land(qi, 0 if pos is None else pos)

    def goto_query(self, query_id: str) -> bool:
        qi = self._qindex.get(query_id)
        if qi is None:
            return False
        self._leave_repeat()
        pos = self.first_unjudged_in(qi)
        self._land(qi, 0 if pos is None else pos)
        return True

    def resume(self) -> None:
        """Put the cursor on the first unjudged candidate (or the very start when all are done)."""
        for qi in range(len(self.query_ids)):
            if self._done_counts[qi] < self._sizes[qi]:
                first = self.first_unjudged_in(qi)
                self._land(qi, 0 if first is None else first)
                return
        self._land(0, 0)

    def _advance(self) -> bool:
        """To the next unjudged candidate: later in this query, then earlier in it, then the next
        unfinished query (wrapping). Returns True if the query changed."""
        view = self._view(self.qi)
        n = len(view.rows)
        if self.picker is not None:
            picked = self.picker(view.rows, view.grades)
            if picked is not None:
                self._land(self.qi, picked)
                return False
            n = 0  # nothing left in this query: on to the next unfinished one
        for step in range(1, n):
            pos = (self.pos + step) % n
            if view.rows[pos]["doc_id"] not in view.grades:
                self._land(self.qi, pos)
                return False
        count = len(self.query_ids)
        for step in range(1, count):
            qi = (self.qi + step) % count
            if self._done_counts[qi] < self._sizes[qi]:
                first = self.first_unjudged_in(qi)
                self._land(qi, 0 if first is None else first)
                return True
        self._shown_since = self._clock()
        return False

    # ----- judging --------------------------------------------------------------------------
    def _record(self, pos: int, grade: int, seconds: float, kind: str = "judge") -> Judgment:
        view = self._view(self.qi)
        doc_id = view.rows[pos]["doc_id"]
        judgment = Judgment(
            labeller=self.labeller,
            query_id=self.query_id,
            doc_id=doc_id,
            grade=grade,
            time=self._now(),
            seconds=round(seconds, 3),
            position=pos,
            kind=kind,
        )
        if self.writer is not None:
            self.writer.record(judgment)  # durable when it returns; raises if not
        self._undo.append((self.query_id, doc_id, view.grades.get(doc_id), kind))
        self._set_grade(self.qi, doc_id, grade)
        return judgment

    def grade(self, grade: int) -> Step:
        """Grade the current candidate and move to the next unjudged one."""
        if grade not in self.scale:
            raise ValueError(f"grade {grade} is not on the scale {self.scale.min}-{self.scale.max}")
        if self.repeating is not None:
            return self._grade_repeat(grade)
        t = self._clock()
        judgment = self._record(self.pos, grade, t - self._shown_since)
        self._pace.add(t)
        moved = self._advance()
        self._since_repeat += 1
        moved = self._serve_repeat() or moved
        return Step(judgment, moved_query=moved, all_done=self.judged_count >= self.total)

    def grade_group(
        self,
        source: int | None = None,
        *,
        progress: Callable[[int, int], None] | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> list[Judgment]:
        """Give every near-duplicate of ``source`` (a shown position of this query; default the
        current candidate) the grade it has. Each one is durable before the next; ``progress(done,
        total)`` follows them, and ``stop()`` ends the run between two of them (a group of
        thousands is graded in a worker, and leaving must not wait for all of it)."""
        if self.repeating is not None:
            return []
        here = self.pos if source is None else source
        grade = self.grade_at(here)
        if grade is None:
            return []
        todo = [pos for pos in self.duplicates_of(here) if self.grade_at(pos) != grade]
        out: list[Judgment] = []
        for start in range(0, len(todo), GROUP_BATCH):
            if stop is not None and stop():
                break
            out += self._record_batch(todo[start : start + GROUP_BATCH], grade)
            if progress is not None:
                progress(len(out), len(todo))  # only what is on disk is counted
        return out

    def _record_batch(self, positions: list[int], grade: int) -> list[Judgment]:
        """Record one grade for several positions of this query as one durable batch (one fsync
        when the writer has ``record_many``); the state changes only after the batch is saved."""
        view = self._view(self.qi)
        now = self._now()
        judgments = [
            Judgment(
                labeller=self.labeller,
                query_id=self.query_id,
                doc_id=view.rows[pos]["doc_id"],
                grade=grade,
                time=now,
                seconds=0.0,
                position=pos,
                kind="judge",
            )
            for pos in positions
        ]
        if self.writer is not None:
            many = getattr(self.writer, "record_many", None)
            if many is not None:
                many(judgments)  # durable when it returns; raises (saving none) if not
            else:
                for judgment in judgments:
                    self.writer.record(judgment)
        for judgment in judgments:
            self._undo.append(
                (self.query_id, judgment.doc_id, view.grades.get(judgment.doc_id), "judge")
            )
            self._set_grade(self.qi, judgment.doc_id, grade)
        return judgments

    def undo(self) -> Step | None:
        """Undo this session's most recent grade; the cursor goes back to that candidate."""
        if not self._undo:
            return None
        self._leave_repeat()
        query_id, doc_id, before, kind = self._undo[-1]
        if kind == "repeat":
            return self._undo_repeat(query_id, doc_id)
        restored = before
        if self.writer is not None:
            # The store answers with the grade now in force: the previous one after undoing a
            # re-grade, None after undoing the only grade. Believe the store, not our memory.
            answer = self.writer.undo(query_id, doc_id)
            restored = answer if isinstance(answer, int) and not isinstance(answer, bool) else None
        self._undo.pop()
        qi = self._qindex[query_id]
        self._set_grade(qi, doc_id, restored)
        view = self._view(qi)
        pos = next(i for i, r in enumerate(view.rows) if r["doc_id"] == doc_id)
        moved = qi != self.qi
        self._land(qi, pos)
        judgment = Judgment(
            self.labeller, query_id, doc_id, restored, self._now(), position=pos, kind="undo"
        )
        return Step(judgment, moved_query=moved)

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    def note(self, text: str) -> None:
        """Save a note on the current candidate (an empty text clears it)."""
        c = self.current
        if self.writer is not None:
            self.writer.note(c.query_id, c.doc_id, text)
        if text:
            self._notes[(c.query_id, c.doc_id)] = text
        else:
            self._notes.pop((c.query_id, c.doc_id), None)

    @property
    def current_note(self) -> str | None:
        c = self.current
        return self._notes.get((c.query_id, c.doc_id))

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
