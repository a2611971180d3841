"""The judging screen: one query, one candidate at a time, keyboard only.

All decisions are the session's (``goldset_tui.judging.JudgingSession``); this screen draws them
and turns keys into calls. Widgets are built once, held, and updated in place, so the next
candidate never rebuilds the screen; what is drawn from state the screen keeps (the saved cell,
a routine message, the reading settings) is reactive and redraws itself when set. Each concern
is a mixin that reaches the screen only through ``widgets/judge_host.JudgingHost``, or a widget
that owns its state: the document and how it is read (``widgets/judge_document.DocumentView``),
the status bar (``widgets/judge_status.StatusBar``).

The saved indicator says saved only after the journal's fsync of that grade returned: in
``goldset judge`` the grade is saved by an ordered background writer while the next candidate
is drawn ("saving…" meanwhile; a failed save is taken back, shown as NOT SAVED and
the labeller brought back to it, see widgets/judge_saving.py); elsewhere the save is on the key.
No key acts on a candidate the labeller has not seen: keys typed while the pool loads are dropped,
and a grade key in a dialog over the screen grades nothing (widgets/judge_guard.py).
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult, CSSPathType
from textual.binding import Binding
from textual.css.scalar import Scalar
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Static

from goldset_tui.judging import JudgingSession
from goldset_tui.model import DEFAULT_GUIDELINES
from goldset_tui.ui.leaving import LeaveKeys, leave_bindings, quits
from goldset_tui.ui.safe import literal
from goldset_tui.ui.widgets import judge_parts as parts
from goldset_tui.ui.widgets.judge_dialogs import Dialogs
from goldset_tui.ui.widgets.judge_doc_keys import READING_ACTIONS, READING_BINDINGS, DocumentKeys
from goldset_tui.ui.widgets.judge_document import DocumentView
from goldset_tui.ui.widgets.judge_footer import FittedFooter
from goldset_tui.ui.widgets.judge_group import GRADE_FIRST, GroupGrading, d_hint
from goldset_tui.ui.widgets.judge_guard import KeyGuard
from goldset_tui.ui.widgets.judge_prefetch import Prefetch
from goldset_tui.ui.widgets.judge_saving import BackgroundSaving
from goldset_tui.ui.widgets.judge_status import StatusBar
from goldset_tui.ui.widgets.judge_updates import put, put_sized
from goldset_tui.ui.widgets.marks import NO_MARKS, Marks, mark_candidate, mark_query

if TYPE_CHECKING:
    from goldset_tui.store.writer import JudgmentWriter

# One footer entry for all grade keys ("0123 grade"); the labels are on the scale line.
GRADE_GROUP = Binding.Group("grade", compact=True)


def _grade_bindings() -> list[Binding]:
    # Bindings for 0-9 exist always; check_action hides those the project's scale does not have,
    # so a 1-5 scale gets keys 1-5. Numpad digits arrive as the same keys.
    return [
        Binding(
            str(g),
            f"grade({g})",
            f"grade {g}",
            id=f"grade_{g}",
            group=GRADE_GROUP,
            # Said once for the whole group in the help's key list, so no digit in it.
            tooltip="Grade, then the next unjudged",
        )
        for g in range(10)
    ]


class JudgeScreen(
    FittedFooter,
    KeyGuard,
    DocumentKeys,
    Dialogs,
    BackgroundSaving,
    GroupGrading,
    Prefetch,
    LeaveKeys,
    Screen[None],
):
    CSS_PATH: ClassVar[CSSPathType | None] = "judge.tcss"
    marks: Marks = NO_MARKS  # set by `goldset judge`: +new pairs, shared queries (marks.py)
    store: Path | None = None  # set by `goldset judge`: where the judgments are kept, under ?

    # The footer must fit 80 columns: the grade keys share one entry, pairs share one (j/k, n/p),
    # and the palette (ctrl+p) is listed under ? instead. Every binding still has an id. Below
    # 90 columns "g goto" and "/ find" give way to "esc back" (the way back to a report): "/" is
    # where a labeller looks for search anyway, and both are under ?.
    BACK_TAKES_PLACE_OF = (frozenset({"goto", "search"}), 90)
    BINDINGS = [
        *_grade_bindings(),
        Binding(
            "j,down", "move(1)", "move", key_display="j/k", id="next", tooltip="Next candidate"
        ),
        Binding("k,up", "move(-1)", "prev", show=False, id="prev", tooltip="Previous candidate"),
        Binding(
            "n", "next_query(1)", "query", key_display="n/p", id="next_query", tooltip="Next query"
        ),
        Binding(
            "p",
            "next_query(-1)",
            "prev query",
            show=False,
            id="prev_query",
            tooltip="Previous query",
        ),
        Binding("u", "undo", "undo", id="undo", tooltip="Undo the last grade"),
        Binding(
            "d",
            "grade_group",
            "dups",
            id="grade_group",
            tooltip="Grade its near-duplicates alike",
        ),
        Binding("c", "note", "note", id="note", tooltip="Note on this candidate"),
        Binding(
            "f",
            "flag",
            "flag",
            show=False,
            id="flag",
            tooltip="Flag it for discussion",
        ),
        Binding("s", "skip", "skip", show=False, id="skip", tooltip="Skip it, with a reason"),
        Binding("g", "goto", "goto", id="goto", tooltip="Go to a query by id"),
        Binding("slash", "search", "find", id="search", tooltip="Search queries, id or text"),
        Binding("question_mark", "help", "help", id="help", tooltip="Guidelines and keys"),
        # Escape: back one screen; q: save and go home, or quit without one (ui/leaving.py).
        *leave_bindings("back", "quit"),
        *READING_BINDINGS,  # m w t, page, line, home/end, ctrl+f, # (judge_doc_keys.py)
    ]

    def __init__(
        self,
        session: JudgingSession | Callable[[], JudgingSession],
        *,
        guidelines: str = DEFAULT_GUIDELINES,
        reveal: bool = False,
        show_guidelines: bool | None = None,
        clock: Callable[[], datetime] = datetime.now,
        warnings: list[str] | None = None,
        writer: JudgmentWriter | None = None,
        render: str | None = None,
        text_width: int | None = None,
        background: bool = False,
    ) -> None:
        super().__init__()
        self._background = background  # save off the key's path (judge_saving.py)
        self._make_session = (
            session if callable(session) and not isinstance(session, JudgingSession) else None
        )
        self.session: JudgingSession | None = (
            session if isinstance(session, JudgingSession) else None
        )
        self.guidelines = guidelines or DEFAULT_GUIDELINES
        self.reveal = reveal
        self._show_guidelines = show_guidelines
        self.clock = clock
        self._writer_closed = False
        self.store_warnings = list(warnings or [])
        self.writer = writer  # closed by flush() even if the session never finished loading
        # (query, position, the session's landings then): what d refers to, until any movement
        self._last_graded: tuple[str, int, int] | None = None
        self._message_timer: Timer | None = None
        # Set by the home screen too: palette entries that leave judging for another screen
        # (title, help, callback), so "review" typed here finds something.
        self.home_commands: list[tuple[str, str, Callable[[], object]]] = []
        # The screen's widgets, built here and held (never looked up again): a saved cell set
        # after the app exited (flush) still has its bar to keep what it says.
        self.query_view = Static(Text("Loading the pool..."), id="query")
        self.candidate_view = Static(Text(""), id="candidate")
        # The text and its reading state; render, text_width: None for the config's.
        self.doc_view = DocumentView(render=render, text_width=text_width)
        self.strip_view = Static(Text(""), id="strip")
        self.scale_view = Static(Text(""), id="scale")
        self.status_bar = StatusBar()  # the progress or a message, and the saved cell

    def compose(self) -> ComposeResult:
        yield self.query_view
        yield self.candidate_view
        yield self.doc_view
        yield self.strip_view
        yield self.scale_view
        yield self.status_bar
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.doc_view.apply_width()
        if self.session is not None:
            self._ready(self.session)
        elif self._make_session is not None:
            self._load()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _load(self) -> None:
        # Indexing a million-row pool takes a moment: off the UI thread.
        assert self._make_session is not None
        try:
            session = self._make_session()
        except Exception as exc:  # shown, not a traceback
            self.app.call_from_thread(self._failed, exc)
            return
        self.app.call_from_thread(self._ready, session)

    def _failed(self, exc: Exception) -> None:
        self._first_drawn()  # nothing to grade, but q and Escape must leave from now on
        # The message can quote data (an id, a path): literal, like everything else from outside.
        self.query_view.update(literal(f"Could not open the pool: {exc}", style="bold red"))

    def _ready(self, session: JudgingSession) -> None:
        self.session = session
        self.status_bar.session = session
        if self._background:
            self.start_background_saving(session)
        self.settle_heap()
        self.refresh_bindings()
        self.refresh_view()
        # The store's warnings on open (a torn journal tail cut and kept, a changed pool): each in
        # a notice at the top, all of them under ?, and a pointer in the status line.
        for warning in self.store_warnings:
            self.notify(warning, severity="warning", markup=False, timeout=30)
        if self.store_warnings:
            n = len(self.store_warnings)
            self.say(f"\u26a0 {n} warning(s) when the store opened: read them under ?", seconds=30)
        first_open = (
            session.judged_count == 0 if self._show_guidelines is None else self._show_guidelines
        )
        if first_open:
            self.action_help()
        self.arm_keys_after_first_draw()  # keys typed before this is drawn never act (judge_guard.py)

    # ----- drawing --------------------------------------------------------------------------
    def refresh_view(self) -> None:
        s = self.session
        if s is None:
            return
        candidate = s.current
        # As little redrawing and layout as each key needs (judge_updates.py).
        # The query grows to the rows its words need, up to judge.tcss's max-height of 5.
        put_sized(
            self.query_view,
            mark_query(parts.query_line(s), self.marks, s.query_id),
            cap=5,
        )
        hint = d_hint(self.group_target())  # what d does here, named (judge_group.py)
        candidate_line = parts.candidate_line(s, candidate, reveal=self.reveal, d_hint=hint)
        candidate_line = mark_candidate(candidate_line, self.marks, s.query_id, candidate.doc_id)
        # Two rows, four when the labeller's flag, skip or note has its line (judge_parts.py).
        remarks = s.current_flag or s.current_skip or s.current_note
        cap = 5 if remarks else 3  # the border's row included (judge.tcss)
        widget = self.candidate_view
        if widget.styles.max_height != Scalar.from_number(cap):
            widget.styles.max_height = cap
        put_sized(widget, candidate_line, cap=cap - 1)
        key = (candidate.query_id, candidate.doc_id)
        if key != self.doc_view.shown:  # another text: from its first page, at its top
            self.doc_view.show(key, candidate.text, s.query_text)
        put(self.strip_view, parts.strip_line(s, self.size.width or 80))
        put(self.scale_view, parts.scale_line(s))
        self.status_bar.redraw()  # the progress
        self.prefetch_upcoming()

    def say(self, message: str, *, seconds: float = 5.0) -> None:
        """A routine message in the status line (toasts would cover the saved cell)."""
        if self._message_timer is not None:
            self._message_timer.stop()
        self._message_timer = self.set_timer(seconds, self.clear_message)
        self.status_bar.message = literal(message, keep_newlines=False, style="bold")

    def clear_message(self) -> None:
        self._message_timer = None
        self.status_bar.message = None

    def on_resize(self) -> None:
        if self.session is not None:
            self.strip_view.update(parts.strip_line(self.session, self.size.width or 80))
            self.status_bar.redraw()

    # ----- keys -----------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "grade":
            if self.session is None:
                return False
            # False hides the key: a 1-5 scale has no 0 key and no 6-9 keys.
            if parameters[0] not in self.session.scale:
                return False
        elif action in READING_ACTIONS:
            return True
        if self.grouping is not None:
            # A near-duplicate group is being graded in a worker, which owns the session until it
            # is done: keys that change it are dimmed, and pressing one says so (judge_group.py).
            return None
        return True if self.session is not None else None  # dimmed while loading

    def action_grade(self, grade: int) -> None:
        if self.session is None or not self.keys_live():
            return
        try:
            step = self.session.grade(grade)
        except Exception as exc:  # disk full, store gone: say so, stay put
            self.not_saved(exc)
            return
        j = step.judgment
        # What d refers to (the candidate grading moved on to is not graded yet), until the
        # cursor lands anywhere else (session.landings).
        ok = j.kind == "judge" and j.position is not None
        armed = (j.query_id, j.position or 0, self.session.landings)
        self._last_graded = armed if ok else None
        label = f"#{(j.position or 0) + 1}={j.grade}"
        if step.before is not None:  # a correction: stayed on it, and says what changed
            label = f"#{(j.position or 0) + 1}: {step.before} \u2192 {j.grade}"
        self.label_pending(j, label)
        # Saved by the background writer: "saving…" until its fsync returned (judge_saving.py).
        saved = self.saving_text(label) if self.session.unsaved else self.saved_text(label)
        self.status_bar.saved = saved
        message = self.status_bar.message
        if message is not None and message.plain.startswith(GRADE_FIRST):
            self.clear_message()  # done as it asked: it would now speak of another candidate
        if step.before is not None:
            self.say(f"Re-graded {label}")
        elif step.all_done:
            self.say("Every candidate in the pool is judged. Thank you!")
        elif step.moved_query:
            self.say("Query finished: on to the next one.", seconds=2)
        self.refresh_view()

    def action_move(self, delta: int) -> None:
        if self.session is not None and self.keys_live():
            s, before = self.session, (self.session.qi, self.session.pos, self.session.repeating)
            s.move(delta)
            self.refresh_view()
            if (s.qi, s.pos, s.repeating) == before:  # a key that did nothing says so
                edge = "last" if delta > 0 else "first"
                self.say(f"The {edge} candidate of this query: n/p for the next or previous one.")

    def action_next_query(self, delta: int) -> None:
        if self.session is not None and self.keys_live():
            before = self.session.qi
            self.session.next_query(delta)
            self.refresh_view()
            if self.session.qi == before:
                self.say(f"The {'last' if delta > 0 else 'first'} query of the pool.")

    def action_undo(self) -> None:
        if self.session is None or not self.keys_live() or not self.wait_for_saves():
            return  # a pending grade failed: the labeller is on it, told; nothing undone
        self._last_graded = None  # d is disarmed: it must not re-grade what was just undone
        try:
            step = self.session.undo()
        except Exception as exc:
            self.not_saved(exc)
            return
        if step is None:
            self.say("Nothing to undo.")
            return
        where = f"#{(step.judgment.position or 0) + 1}"
        if step.undone > 1:  # one d's whole group
            self.status_bar.saved = self.saved_text(f"undo {step.undone:,} near-duplicates")
            self.say(f"Undid the {step.undone:,} near-duplicate grades one d gave (from {where}).")
        else:
            self.status_bar.saved = self.saved_text(f"undo {where}")
        self.refresh_view()

    async def action_leave(self) -> None:
        """Save and go home (quit without a home screen): the palette's "Home" entry."""
        await self.app.run_action("app.go_home")

    def palette_commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        """Palette entries beyond the keys: help under its own name, and the way home."""
        out: list[tuple[str, str, Callable[[], object]]] = [
            (
                "Help: guidelines and keys",
                "the labelling guidelines and every key (?)",
                self.action_help,
            ),
        ]
        if not quits(self):  # "home" itself is listed with the keys (q)
            out.extend(self.home_commands)
        return out

    # ----- leaving --------------------------------------------------------------------------
    def flush(self) -> None:
        """Close the writer once (every grade is already durable; this compacts and unlocks)."""
        if self._writer_closed:
            return
        self.stop_grouping()  # a group run in a worker stops between two durable judgments
        self._writer_closed = True
        if self.session is not None:
            # Every pending grade is written first (the background writer's queue is flushed).
            ok = self.wait_for_saves()
            self.session.close()
            if not ok:
                # With its strerror set, so the CLI's one line says which grade and why.
                raise OSError(
                    errno.EIO, f"a grade could not be saved: {self.status_bar.saved.plain}"
                )
        elif self.writer is not None:
            self.writer.close()
