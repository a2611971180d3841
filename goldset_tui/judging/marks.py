"""Flags and skips: what a labeller says about a candidate besides its grade.

A **flag** ("unsure / needs discussion") keeps the candidate's grade, if any, and sends the pair to
adjudication beside the disagreements; a flag's reason is exported with the judgments. A **skip**
passes the candidate over without a grade and records why: grading goes on to the next unjudged
candidate and never serves a skipped one again until the labeller goes back to it and grades it
(then the grade is what counts). Both are saved through the writer (``flag``/``skip`` records,
the reason in the note column, see store/frames.py) before the session changes, like a note.
"""

from __future__ import annotations

from typing import Any

# The reason a flag records when the labeller gives none (one key, no dialog).
DEFAULT_FLAG = "unsure"


class Marks:
    """Mixin for ``JudgingSession``: it provides ``current``, ``writer``, ``grade_at``, ``pos``
    and ``_advance``; ``_skipped`` (a set of pairs) is ``SessionState``'s, which navigation
    reads."""

    _flags: dict[tuple[str, str], str]
    _skipped: set[tuple[str, str]]

    def _init_marks(
        self, flags: dict[tuple[str, str], str] | None, skips: dict[tuple[str, str], str] | None
    ) -> None:
        self._flags = dict(flags or {})
        self._skip_reasons: dict[tuple[str, str], str] = dict(skips or {})
        self._skipped.update(self._skip_reasons)

    @property
    def current_flag(self) -> str | None:
        """The current candidate's flag reason, None when it is not flagged."""
        me: Any = self
        c = me.current
        return self._flags.get((c.query_id, c.doc_id))

    @property
    def current_skip(self) -> str | None:
        """Why the current candidate was skipped (and not graded since), else None."""
        me: Any = self
        c = me.current
        if me.grade_at(me.pos) is not None:
            return None
        return self._skip_reasons.get((c.query_id, c.doc_id))

    @property
    def flag_count(self) -> int:
        return len(self._flags)

    def toggle_flag(self, reason: str = DEFAULT_FLAG) -> bool:
        """Flag the current candidate, or unflag it when flagged; True when it is now flagged.
        Saved (durable) before the session changes."""
        me: Any = self
        c = me.current
        pair = (c.query_id, c.doc_id)
        flagged = pair not in self._flags
        text = (reason.strip() or DEFAULT_FLAG) if flagged else ""
        if me.writer is not None:
            me.writer.flag(c.query_id, c.doc_id, text)
        if flagged:
            self._flags[pair] = text
        else:
            self._flags.pop(pair, None)
        return flagged

    def skip(self, reason: str) -> bool:
        """Pass the current candidate over with a reason (saved first), then go on to the next
        unjudged candidate as a grade would. Returns True if the query changed. A graded
        candidate is not skipped (ValueError): its grade already stands."""
        me: Any = self
        if not reason.strip():
            raise ValueError("a skip needs a reason")
        if me.grade_at(me.pos) is not None:
            raise ValueError("this candidate is graded: a skip would record nothing")
        c = me.current
        pair = (c.query_id, c.doc_id)
        if me.writer is not None:
            me.writer.skip(c.query_id, c.doc_id, reason.strip())
        self._skip_reasons[pair] = reason.strip()
        self._skipped.add(pair)
        moved: bool = me._advance()
        return moved
