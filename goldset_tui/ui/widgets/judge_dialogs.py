"""The judging screen's dialogs: a note, a flag, a skip's reason, go to a query, find a query, and
the help.

Each opens only once keys are live (``judge_guard.py``): a dialog opened by a key typed while
loading took the rest of the type-ahead as its input and graded through it.
"""

from __future__ import annotations

from goldset_tui.ui.screens.help import HelpScreen, keys_table
from goldset_tui.ui.screens.prompts import QueryPicker, TextPrompt
from goldset_tui.ui.widgets.judge_host import Base


class Dialogs(Base):
    """Mixin for the judging screen; what it uses of the screen: ``judge_host.JudgingHost``."""

    def action_note(self) -> None:
        if not self.keys_live():
            return

        def save(text: str | None) -> None:
            # Escape saves nothing; an empty note clears the old one (and is a no-op without one).
            if (
                text is None
                or self.session is None
                or (text == "" and not self.session.current_note)
            ):
                return
            try:
                self.session.note(text)
            except Exception as exc:
                self.not_saved(exc)
                return
            self.status_bar.saved = self.saved_text("note" if text else "note cleared")
            self.refresh_view()

        assert self.session is not None
        current = self.session.current_note or ""
        self.app.push_screen(
            TextPrompt(
                "Note on this candidate (empty clears it)",
                placeholder="why, or what to check",
                value=current,
            ),
            save,
        )

    def action_flag(self) -> None:
        """One key: flag the candidate on screen "unsure / needs discussion", or unflag it. Its
        reason is "unsure"; a note (c) says more. Saved before the screen says so."""
        if self.session is None or not self.keys_live() or not self.wait_for_saves():
            return
        try:
            flagged = self.session.toggle_flag()
        except Exception as exc:
            self.not_saved(exc)
            return
        where = f"#{self.session.pos + 1}"
        self.status_bar.saved = self.saved_text(
            f"flagged {where}" if flagged else f"unflagged {where}"
        )
        if flagged:
            self.say(f"Flagged {where} for discussion: it goes to adjudication. f again unflags.")
        self.refresh_view()

    def action_skip(self) -> None:
        """Pass the candidate on screen over with a reason (asked for; Escape skips nothing)."""
        if self.session is None or not self.keys_live():
            return
        if self.session.current_grade is not None:
            self.say("This candidate is graded: a skip is for one you cannot grade.")
            return
        c = self.session.current
        pair = (c.query_id, c.doc_id)

        def save(reason: str | None) -> None:
            if not reason or not reason.strip() or self.session is None:
                if reason is not None:
                    self.say("Not skipped: a skip needs a reason.")
                return
            here = self.session.current
            if (here.query_id, here.doc_id) != pair or not self.wait_for_saves():
                return  # the cursor moved meanwhile (a failed save): skip nothing unseen
            try:
                moved = self.session.skip(reason)
            except Exception as exc:
                self.not_saved(exc)
                return
            self.status_bar.saved = self.saved_text(f"skipped #{c.position + 1}")
            if moved:
                self.say("Skipped; query finished: on to the next one.", seconds=2)
            self.refresh_view()

        self.app.push_screen(
            TextPrompt(
                "Skip this candidate: why? (it is recorded; Escape keeps it)",
                placeholder="e.g. page did not load, not in English, cannot tell",
            ),
            save,
        )

    def action_goto(self) -> None:
        if not self.keys_live():
            return

        def go(query_id: str | None) -> None:
            if not query_id or self.session is None:
                return
            if self.session.goto_query(query_id.strip()):
                self.refresh_view()
            else:
                self.say(f"No query with id {query_id.strip()!r} in this pool.")

        self.app.push_screen(TextPrompt("Go to query id", placeholder="query id"), go)

    def action_search(self) -> None:
        if not self.keys_live():
            return

        def go(query_id: str | None) -> None:
            if query_id and self.session is not None and self.session.goto_query(query_id):
                self.refresh_view()

        session = self.session
        assert session is not None

        def mark(query_id: str) -> str:
            qi = session.query_index(query_id)
            return "\u2713 " if qi is not None and session.is_finished(qi) else "  "

        self.app.push_screen(QueryPicker(session.search_queries, mark=mark), go)

    def action_help(self) -> None:
        grades = "".join(str(g) for g in self.session.scale.grades) if self.session else ""
        warned = "".join(f"\u26a0 {w}\n\n" for w in self.store_warnings)
        text = f"Warnings when the store opened:\n\n{warned}" if warned else ""
        # A NOT SAVED reason too long for the status bar is cut there: here it is whole.
        if self.status_bar.saved.plain.startswith("\u2717"):
            text = f"{self.status_bar.saved.plain}\n\n{text}"
        if self.store is not None:  # where the labeller's work is, for the exit line's reader too
            text = f"Your judgments are kept in {self.store}\n\n{text}"
        self.app.push_screen(
            HelpScreen(
                text + self.guidelines,
                keys_table(self),
                # A grade key closes the guidelines and grades nothing (judge_guard.py).
                passthrough=self.help_key,
                passthrough_hint=f"a grade key ({grades}) only closes this" if grades else "",
            )
        )
