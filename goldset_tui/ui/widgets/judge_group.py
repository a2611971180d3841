"""``d`` on the judging screen: give a near-duplicate group one grade, without freezing the screen.

Which group (group_target; the candidate line names it): only the one just graded, and only until
the cursor moves (grading moves on, often onto the next member of the group, so ``d`` right after
a grade means "the same for its duplicates"). Undo, or any movement (j/k, n/p, a query picked,
even a key that lands where it was), disarms it: a ``d`` left armed re-graded candidates the
labeller had just undone, and offered a group the labeller had not just graded. One ``u`` takes
a whole group back (``JudgingSession.undo``). A group of more than ``INLINE_LIMIT`` candidates is graded in
a worker thread, in durable batches (``GROUP_BATCH`` judgments to one fsync), with progress in the
status line after each batch; the screen takes no key that changes the session until it is done
(the session is not shared between threads: grade keys are disabled too, and a key pressed
meanwhile turns the progress into "Keys wait: ..."), and leaving stops it between two batches.
Every judgment is on disk before the screen counts it.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from textual import events, work
from textual.message import Message
from textual.reactive import var

from goldset_tui.judging import JudgingSession
from goldset_tui.model import Judgment
from goldset_tui.text import visible
from goldset_tui.ui.widgets.judge_host import Base

# Up to this many, grading runs on the UI thread (a few fsyncs: no visible pause).
GRADE_FIRST = "Grade #"  # the start of what d says pressed before its candidate is graded
INLINE_LIMIT = 200
PROGRESS_EVERY_SECONDS = 0.1


class GroupGrading(Base):
    """Mixin for the judging screen; what it uses of the screen: ``judge_host.JudgingHost``."""

    _last_graded: tuple[str, int, int] | None = None  # (query, position, session.landings then)
    # A group being graded in a worker. Its keys are dimmed meanwhile (the screen's
    # check_action asks this), so the footer is refreshed whenever it starts or ends.
    grouping: var[_Run | None] = var(None, init=False, bindings=True)

    def group_target(self) -> GroupTarget:
        """What ``d`` does now; the candidate line says the same (``d_hint``)."""
        assert self.session is not None
        return group_target(self.session, self._last_graded)

    def action_grade_group(self) -> None:
        s = self.session
        if s is None or self.grouping is not None or not self.keys_live():
            return
        if not self.wait_for_saves():
            return  # the grade d would copy failed to save: the labeller is back on it, told
        target = self.group_target()
        source, grade = target.source, target.grade
        if s.repeating is not None:
            self.say("A repeat is graded blind, on its own: d works on first grades.")
            return
        if source is None:
            self.say(
                f"{GRADE_FIRST}{s.pos + 1} first; d then gives its near-duplicates the same grade."
                if target.group
                else "This candidate has no near-duplicates in this query."
            )
            return
        if not target.group:
            self.say("This candidate has no near-duplicates in this query.")
            return
        group = s.duplicates_of(source)
        todo = [p for p in group if s.grade_at(p) != grade]
        if not todo:
            self.say(f"Its {len(group):,} near-duplicate(s) already have grade {grade}.")
            return
        if len(todo) <= INLINE_LIMIT:
            try:
                done = s.grade_group(source)
            except Exception as exc:
                self.not_saved(exc)
                return
            self._group_done(done, grade, len(todo), False)
            return
        run = self.grouping = _Run(total=len(todo), grade=grade)
        self._say_progress(run)
        self._grade_group_in_worker(source, grade, len(todo), run)

    class Progress(Message):
        """Posted from the worker (post_message is thread-safe and never waits for the UI)."""

        def __init__(self, done: int, total: int, grade: int) -> None:
            super().__init__()
            self.done, self.total, self.grade = done, total, grade

    class Finished(Message):
        def __init__(self, judged: list[Judgment], grade: int, total: int, error: Exception | None):
            super().__init__()
            self.judged, self.grade, self.total, self.error = judged, grade, total, error

    @work(thread=True, exclusive=True, group="near-duplicates", exit_on_error=False)
    def _grade_group_in_worker(self, source: int, grade: int, total: int, run: _Run) -> None:
        assert self.session is not None
        last = 0.0

        def progress(done: int, of: int) -> None:
            nonlocal last
            now = time.monotonic()
            if now - last >= PROGRESS_EVERY_SECONDS or done == of:
                last = now
                self.post_message(GroupGrading.Progress(done, of, grade))

        judged: list[Judgment] = []
        error: Exception | None = None
        try:
            judged = self.session.grade_group(source, progress=progress, stop=run.stop.is_set)
        except Exception as exc:  # disk full part-way: what was saved stays saved
            error = exc
        finally:
            run.idle.set()  # the writer may close now
        self.post_message(GroupGrading.Finished(judged, grade, total, error))

    def on_group_grading_progress(self, message: GroupGrading.Progress) -> None:
        run = self.grouping
        if run is not None:
            run.done, run.total, run.grade = message.done, message.total, message.grade
            self._say_progress(run)

    def _say_progress(self, run: _Run) -> None:
        if run.refused:  # a key was pressed meanwhile: say why it did nothing, first
            text = f"Keys wait: {run.done:,}/{run.total:,} near-duplicates graded {run.grade}"
        else:
            text = f"Grading {run.total:,} near-duplicates {run.grade}: {run.done:,}/{run.total:,} saved"
        self.say(text, seconds=3600)

    def on_key(self, event: events.Key) -> None:
        # While the worker grades a group, the keys that would change the session are disabled
        # (check_action), so Textual drops them without a word; the labeller is told instead.
        run = self.grouping
        if run is None:
            return
        active = self.active_bindings.get(event.key)
        if active is not None and not active.enabled:
            run.refused = True
            self._say_progress(run)

    def on_group_grading_finished(self, message: GroupGrading.Finished) -> None:
        run, self.grouping = self.grouping, None
        if message.error is not None:
            self.not_saved(message.error)
            return
        stopped = run is not None and run.stop.is_set()
        self._group_done(message.judged, message.grade, message.total, stopped)

    def _group_done(
        self, done: list[Judgment], grade: int | None, total: int, stopped: bool
    ) -> None:
        note = f" (stopped: {len(done):,} of {total:,})" if stopped and len(done) < total else ""
        saved = self.saved_text(f"{len(done):,} near-duplicate(s) = {grade}{note}")
        self.status_bar.saved = saved
        self.say(visible(f"{len(done):,} near-duplicate(s) graded {grade}{note}."), seconds=3)
        self.refresh_view()

    def stop_grouping(self, timeout: float = 10.0) -> None:
        """Stop a group run between two judgments and wait until it writes no more (the writer
        closes next). The worker never waits for the UI thread, so this cannot deadlock."""
        if self.grouping is not None:
            self.grouping.stop.set()
            self.grouping.idle.wait(timeout)


@dataclass(frozen=True)
class GroupTarget:
    """What ``d`` does now: give the ``todo`` of the ``group`` near-duplicates of shown position
    ``source`` (0-based) that lack its ``grade`` that grade. ``source`` None: nothing yet (the
    current candidate, with ``group`` near-duplicates, is to be graded first)."""

    source: int | None
    grade: int | None = None
    group: int = 0
    todo: int = 0


def group_target(s: JudgingSession, last_graded: tuple[str, int, int] | None) -> GroupTarget:
    """The group of the candidate just graded, if the cursor has not landed anywhere since
    (``landings`` unchanged) and some of its near-duplicates lack its grade (grade, then d: the
    labeller's order); else nothing until the current one is graded (d never guesses a grade)."""
    if s.repeating is None and last_graded is not None:
        query_id, pos, landings = last_graded
        if landings == s.landings and query_id == s.query_id and s.grade_at(pos) is not None:
            target = _target(s, pos)
            if target.todo:
                return target
    return GroupTarget(None, group=len(s.duplicates_of()))


def _target(s: JudgingSession, pos: int) -> GroupTarget:
    grade = s.grade_at(pos)
    group = s.duplicates_of(pos)
    todo = sum(1 for p in group if s.grade_at(p) != grade)
    return GroupTarget(pos, grade, len(group), todo)


def d_hint(target: GroupTarget) -> str:
    """The candidate line's words for what ``d`` does here ("" when it does nothing)."""
    if target.source is None:
        return "grade it, then d grades them alike" if target.group else ""
    if not target.todo:
        return ""
    many = "near-duplicate" if target.todo == 1 else "near-duplicates"
    return f"d: grade #{target.source + 1}'s {target.todo:,} {many} {target.grade}"


@dataclass
class _Run:
    total: int = 0
    grade: int | None = None
    done: int = 0
    refused: bool = False  # a key was pressed during the run (and did nothing): say so
    stop: threading.Event = field(default_factory=threading.Event)
    idle: threading.Event = field(default_factory=threading.Event)
