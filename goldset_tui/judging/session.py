"""The judging session: what a key does. A grade is saved through the writer first (or queued to
a background writer that has ``submit``, and taken back by ``settle`` if that save fails), then the
cursor moves to the next unjudged candidate (later in this query, then earlier, then the next
unfinished query), serving a blind repeat when one is due. Re-grading a judged candidate (a
correction) stays on it. Undo goes back to the candidate; one undo takes back a whole
near-duplicate group, and the stack is rebuilt from the store on open (``history.py``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import polars as pl

from goldset_tui.judging.adaptive import adaptive_next, relevant_from
from goldset_tui.judging.duplicates import DuplicateGroups
from goldset_tui.judging.history import undo_stack
from goldset_tui.judging.marks import Marks
from goldset_tui.judging.repeats import REPEAT_EVERY, RepeatingSession
from goldset_tui.judging.state import Step, UndoEntry, Writer
from goldset_tui.model import GradeScale, Judgment
from goldset_tui.store.files import now_iso
from goldset_tui.store.ordered import EarlierSaveFailed

# A near-duplicate group is saved in batches of this many judgments, one fsync each: 50,000 alike
# candidates took 266 s at one fsync per judgment. Progress is reported after each batch.
GROUP_BATCH = 1000


class JudgingSession(Marks, RepeatingSession, DuplicateGroups):
    """State of one labeller judging one pool.

    ``frame`` is the pool (``query_id, query, doc_id, text`` + optional ``title, stratum, systems,
    ranks``); ``judged`` the labeller's latest grades (``query_id, doc_id, grade``; null grades are
    undone and count as unjudged); ``query_ids`` restricts and orders the queries (an assignment);
    ``history`` the labeller's events in the store (``Project.judgments(labeller, history=True)``),
    from which undo picks up where the last session left off; ``flags`` and ``skips`` the
    labeller's flagged and skipped pairs with their reasons (marks.py).
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
        now: Callable[[], str] = now_iso,
        repeats: Sequence[tuple[str, str]] = (),
        repeat_every: int = REPEAT_EVERY,
        notes: dict[tuple[str, str], str] | None = None,
        order: str = "blind",
        history: pl.DataFrame | None = None,
        flags: dict[tuple[str, str], str] | None = None,
        skips: dict[tuple[str, str], str] | None = None,
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
        self._init_marks(flags, skips)  # flagged and skipped pairs, with reasons (marks.py)
        # Grades queued with a background writer, by ticket: (undo entry, query index, position).
        self._unsaved: dict[int, tuple[UndoEntry, int, int]] = {}
        self._groups = 0  # the last number given to a d group on the undo stack
        if history is not None and history.height:
            mine = history.join(
                self._pool.select("query_id", "doc_id"), on=["query_id", "doc_id"], how="semi"
            )
            self._undo, self._groups = undo_stack(mine)
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
            if self._open(self.query_id, view, pos):
                self._land(self.qi, pos)
                return False
        count = len(self.query_ids)
        for step in range(1, count):
            qi = (self.qi + step) % count
            if self._done_counts[qi] < self._sizes[qi]:
                first = self.first_unjudged_in(qi)
                if first is None and self.picker is None:
                    continue  # only skipped candidates left there
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
        entry = UndoEntry(self.query_id, doc_id, view.grades.get(doc_id), kind)
        submit = getattr(self.writer, "submit", None) if kind == "judge" else None
        if submit is not None:
            # Saved by a background writer (store/ordered.py), in order: not "saved" until
            # settle() reports it; a failed save is taken back there.
            self._unsaved[submit(judgment)] = (entry, self.qi, pos)
        elif self.writer is not None:
            self.writer.record(judgment)  # durable when it returns; raises if not
        self._undo.append(entry)
        self._set_grade(self.qi, doc_id, grade)
        return judgment

    def settle(self) -> tuple[list[Judgment], list[tuple[Judgment, Exception]]]:
        """The queued grades the background writer finished since the last call: (saved, failed).
        A failed grade is taken back (the candidate unjudged again, or its earlier grade restored,
        gone from undo) and the cursor goes to the first one that failed (a grade refused only
        because an earlier one failed does not move it)."""
        take = getattr(self.writer, "settled", None)
        if take is None:
            return [], []
        saved: list[Judgment] = []
        failed: list[tuple[int, Judgment, Exception]] = []
        for ticket, judgment, error in take():
            if error is None:
                self._unsaved.pop(ticket, None)
                saved.append(judgment)
            else:
                failed.append((ticket, judgment, error))
        for ticket, _judgment, _error in reversed(failed):  # newest first restores each "before"
            entry, qi, _pos = self._unsaved.pop(ticket)
            for i in range(len(self._undo) - 1, -1, -1):
                if self._undo[i] is entry:
                    del self._undo[i]
                    break
            self._set_grade(qi, entry[1], entry[2])
        # The cursor goes to the failure itself, not to a grade given after it and refused for
        # that reason: those can settle in a later batch, and landing on them would take the
        # labeller away from the candidate whose save failed.
        first = next((j for _t, j, e in failed if not isinstance(e, EarlierSaveFailed)), None)
        if first is not None:
            self._leave_repeat()
            self._land(self._qindex[first.query_id], first.position or 0)
        return saved, [(j, e) for _t, j, e in failed]

    @property
    def unsaved(self) -> int:
        """Grades given but not yet reported saved by a background writer."""
        return len(self._unsaved)

    def grade(self, grade: int) -> Step:
        """Grade the current candidate and move to the next unjudged one; a candidate already
        judged is re-graded and the cursor stays on it (a correction: the labeller is looking
        at it, and the next ``k`` must mean the one before it, not one in another query)."""
        if grade not in self.scale:
            raise ValueError(f"grade {grade} is not on the scale {self.scale.min}-{self.scale.max}")
        if self.repeating is not None:
            return self._grade_repeat(grade)
        t = self._clock()
        before = self.grade_at(self.pos)
        judgment = self._record(self.pos, grade, t - self._shown_since)
        self._pace.add(t)
        if before is not None:
            self._since_repeat += 1  # a repeat waits for the next first grade: no jump now
            self._shown_since = t
            return Step(judgment, all_done=self.judged_count >= self.total, before=before)
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
        # One time for the whole group, every batch: with no seconds spent, that is how the
        # group is known again from the store (history.py), so one undo takes it all back.
        now = self._now()
        self._groups += 1
        for start in range(0, len(todo), GROUP_BATCH):
            if stop is not None and stop():
                break
            out += self._record_batch(todo[start : start + GROUP_BATCH], grade, now, self._groups)
            if progress is not None:
                progress(len(out), len(todo))  # only what is on disk is counted
        return out

    def _record_batch(
        self, positions: list[int], grade: int, now: str, group: int
    ) -> list[Judgment]:
        """Record one grade for several positions of this query as one durable batch (one fsync
        when the writer has ``record_many``); the state changes only after the batch is saved."""
        view = self._view(self.qi)
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
            before = view.grades.get(judgment.doc_id)
            self._undo.append(UndoEntry(self.query_id, judgment.doc_id, before, "judge", group))
            self._set_grade(self.qi, judgment.doc_id, grade)
        return judgments

    def undo(self) -> Step | None:
        """Undo the labeller's most recent grade (of this session or, read back from the store,
        an earlier one), or the whole near-duplicate group one ``d`` gave; the cursor goes back to
        that candidate (the group's first)."""
        if not self._undo:
            return None
        self._leave_repeat()
        top = self._undo[-1]
        if top.kind == "repeat":
            return self._undo_repeat(top.query_id, top.doc_id)
        n = 1
        if top.group is not None:
            while n < len(self._undo) and self._undo[-1 - n].group == top.group:
                n += 1
        entries = self._undo[-n:]
        restored = self._undo_in_store(entries)
        del self._undo[-n:]
        qi = self._qindex[top.query_id]
        for entry, grade in zip(entries, restored, strict=True):
            self._set_grade(qi, entry.doc_id, grade)
        first = entries[0]  # undone one by one, the last undone would be the first given
        pos = self._position_of(qi, first.doc_id)
        moved = qi != self.qi
        self._land(qi, pos)
        judgment = Judgment(
            self.labeller,
            first.query_id,
            first.doc_id,
            restored[0],
            self._now(),
            position=pos,
            kind="undo",
        )
        return Step(judgment, moved_query=moved, undone=n)

    def _undo_in_store(self, entries: list[UndoEntry]) -> list[int | None]:
        """Record the undo of each entry (one fsync for many when the writer has ``undo_many``);
        the grades now in force. The store answers with the grade in force: the previous one
        after undoing a re-grade, None after undoing the only grade. Believe it, not our memory."""
        if self.writer is None:
            return [e.before for e in entries]
        many = getattr(self.writer, "undo_many", None)
        pairs = [(e.query_id, e.doc_id) for e in entries]
        if many is not None and len(pairs) > 1:
            answers = list(many(pairs))
        else:
            answers = [self.writer.undo(q, d) for q, d in pairs]
        return [a if isinstance(a, int) and not isinstance(a, bool) else None for a in answers]

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
