"""One labeller's judgment writer: durable saves, undo, notes, flags and skips, compaction.

Saving a judgment is one journal append plus fdatasync, whatever the size of the store. Every
``COMPACT_EVERY`` records (and on close) the journal's records go into a new Parquet part and the
journal is emptied, so replay on the next open stays short.

The journal is the truth; parts are a cache of it. So a compaction that fails (a full disk, which
Polars reports as ``ComputeError``, or any other error) never fails the save that triggered it,
nor the opening or closing of the writer: the records stay in the journal, compaction is tried
again ``COMPACT_EVERY`` saves later and on the next open, and :meth:`JudgmentWriter.take_notice`
hands the UI one sentence to show, once per session.
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import polars as pl

from goldset_tui.errors import InputError, StoreLockedError
from goldset_tui.model import GradeScale, Judgment
from goldset_tui.scalar import as_int
from goldset_tui.store.files import now_iso, os_error_from, remove_stale_tmp
from goldset_tui.store.frames import (
    GRADING_KINDS,
    JUDGMENT_SCHEMA,
    check_compacted_copies,
    records_to_frame,
)
from goldset_tui.store.journal import Journal, read_journal
from goldset_tui.store.parts import (
    last_seq,
    list_parts,
    read_pair,
    read_pairs,
    read_parts,
    tidy_parts,
    write_part,
)

T = TypeVar("T")

COMPACT_EVERY = 1000


def _serialised(method: Callable[..., T]) -> Callable[..., T]:
    @functools.wraps(method)
    def wrapper(self: JudgmentWriter, *args: Any, **kwargs: Any) -> T:
        with self._mutex:
            return method(self, *args, **kwargs)

    return wrapper


def check_id(value: object, name: str, path: Path) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(path, f"{name} must be a non-empty string, got {value!r}", column=name)
    return value


def check_grade(grade: object, scale: GradeScale, path: Path) -> int:
    if grade not in scale:
        raise InputError(
            path, f"grade {grade!r} is outside the scale {scale.min}-{scale.max}", column="grade"
        )
    return as_int(grade)


class JudgmentWriter:
    """Appends one labeller's judgments; holds that labeller's journal lock until closed.

    It knows nothing of the store around it (``Project.writer`` opens one), so the store and the
    writer do not import each other: it is given the labeller's journal and parts folder, the
    grade scale, and two calls back. On close, ``on_wrote(labeller)`` runs if this session saved
    anything (the project stamps the labeller in its manifest; a failure there is only a warning), then
    ``on_closed(writer)`` always runs, after the lock is released."""

    def __init__(
        self,
        labeller: str,
        *,
        journal_path: Path,
        parts_dir: Path,
        scale: GradeScale,
        on_wrote: Callable[[str], None] | None = None,
        on_closed: Callable[[JudgmentWriter], None] | None = None,
    ):
        self.labeller = labeller
        self.scale = scale
        self.journal_path, self.parts_dir = journal_path, parts_dir
        self._on_wrote, self._on_closed = on_wrote, on_closed
        # The judging screen may save from a worker thread while the UI thread undoes or closes.
        self._mutex = threading.RLock()
        self._journal = Journal(self.journal_path, lock=True, void_key="seq")
        try:
            self.warnings = list(self._journal.warnings)
            self._notice: str | None = None
            self._noticed = False
            remove_stale_tmp(self.parts_dir)
            self._pending: list[dict[str, Any]] = []
            self._compact_at = COMPACT_EVERY
            self._wrote = False
            text = read_journal(self.journal_path)
            numbered = text.records
            self.warnings += text.warnings
            # validates every line, grades against the store's scale included
            in_journal = records_to_frame(
                numbered, self.journal_path, scale=self.scale, labeller=labeller
            )
            compacted = last_seq(self.parts_dir)
            # Past every number the journal names, voided ones too: a void must never reach a
            # record saved after it.
            self._next_seq = max(compacted, as_int(in_journal["seq"].max() or 0), text.top) + 1
            if any(record["seq"] <= compacted for _, record in numbered):  # after a crash only
                lines = [line for line, _ in numbered]
                parts = read_parts(self.parts_dir)
                check_compacted_copies(in_journal, lines, parts, self.journal_path)
            # Records a crashed session left in the journal become a part now, so the journal is
            # short again and replay stays fast. If that fails they stay in the journal, which
            # is as safe, and become pending: the next compaction writes them with the new ones.
            leftover = [record for _, record in numbered if record["seq"] > compacted]
            try:
                if leftover:
                    write_part(self.parts_dir, in_journal.filter(pl.col("seq") > compacted))
                if numbered or text.top:
                    self._journal.truncate()
            except Exception as exc:
                self._pending = leftover
                self._compaction_failed(exc)
        except BaseException:
            self._journal.close()
            raise

    # --- saving -----------------------------------------------------------------------------
    def _append(self, record: dict[str, Any]) -> int:
        seq = record["seq"] = self._next_seq
        # Used up even if the append fails: its line may survive, voided by this number.
        self._next_seq += 1
        self._journal.append(record)  # durable from here on
        self._wrote = True
        self._pending.append(record)
        self._compact_if_due()
        return seq

    def _append_many(self, records: list[dict[str, Any]]) -> None:
        """``_append`` for several records: consecutive seqs, one journal write and one fsync."""
        first = self._next_seq
        for offset, record in enumerate(records):
            record["seq"] = first + offset
        self._next_seq += len(records)  # used up even if the append fails, as in _append
        self._journal.append_many(records)  # durable from here on
        self._wrote = True
        self._pending.extend(records)
        self._compact_if_due()

    def _compact_if_due(self) -> None:
        if len(self._pending) >= self._compact_at:
            try:
                self.compact()
            except Exception as exc:
                # The record is already durable; a failed compaction must not turn a successful
                # save into an error (whatever the error's type). The journal keeps everything.
                self._compaction_failed(exc)

    def _compaction_failed(self, exc: Exception) -> None:
        """Note a failed compaction and put off the next try by ``COMPACT_EVERY`` saves."""
        self._compact_at = len(self._pending) + COMPACT_EVERY
        reason = os_error_from(exc, self.parts_dir) if not isinstance(exc, InputError) else exc
        self.warnings.append(f"{self.parts_dir}: compaction failed, will retry: {reason}")
        if not self._noticed:
            self._noticed = True
            self._notice = (
                f"Judgments are saved (in {self.journal_path}), but tidying them into "
                f"{self.parts_dir} failed: {reason}. Free some disk space; goldset retries "
                "by itself."
            )

    def take_notice(self) -> str | None:
        """A sentence for the screen about trouble that did not stop saving (a compaction that
        failed on a full disk), at most once per session; None when there is nothing to say."""
        notice, self._notice = self._notice, None
        return notice

    @_serialised
    def record(self, j: Judgment) -> int:
        """Save a judgment (or a ``repeat``); durable on disk when this returns. Returns its seq."""
        return self._append(self._checked(j))

    @_serialised
    def record_many(self, judgments: list[Judgment]) -> list[int]:
        """Save several judgments with one journal write and one fsync; every one is durable when
        this returns, and on an error none of them is saved (all are checked before any is
        written). Returns their seqs. For a near-duplicate group graded in one key."""
        records = [self._checked(j) for j in judgments]
        if not records:
            return []
        self._append_many(records)
        return [r["seq"] for r in records]

    def _checked(self, j: Judgment) -> dict[str, Any]:
        """The journal record of a judgment, every field checked (InputError/ValueError if not)."""
        path = self.journal_path
        if j.labeller != self.labeller:
            raise ValueError(f"this writer saves {self.labeller!r}'s judgments, not {j.labeller!r}")
        if j.kind not in GRADING_KINDS:
            raise ValueError(
                f"record() saves kinds {GRADING_KINDS}; use undo() or note() for {j.kind!r}"
            )
        seconds = float(j.seconds or 0.0)
        if not math.isfinite(seconds) or seconds < 0:
            raise InputError(
                path,
                f"time spent must be a finite number >= 0, got {j.seconds!r}",
                column="seconds",
            )
        if j.position is not None and (
            isinstance(j.position, bool) or not isinstance(j.position, int)
        ):
            raise InputError(
                path, f"position must be an integer, got {j.position!r}", column="position"
            )
        if not isinstance(j.time, str):
            raise InputError(path, f"time must be ISO 8601 text, got {j.time!r}", column="time")
        if j.note is not None and not isinstance(j.note, str):
            raise InputError(
                path, f"a note must be text, got {type(j.note).__name__}", column="note"
            )
        return {
            "kind": j.kind,
            "labeller": self.labeller,
            "query_id": check_id(j.query_id, "query_id", path),
            "doc_id": check_id(j.doc_id, "doc_id", path),
            "grade": check_grade(j.grade, self.scale, path),
            "time": j.time or now_iso(),
            "seconds": seconds,
            "position": j.position,
            "note": j.note,
        }

    def _grades_in_force(self, query_id: str, doc_id: str) -> list[tuple[str, int]]:
        """The (kind, grade) stack of this pair after its undos, oldest first."""
        on_disk = read_pair(self.parts_dir, query_id, doc_id).select("kind", "grade").rows()
        recent = [
            (r["kind"], r["grade"])
            for r in self._pending
            if (r["query_id"], r["doc_id"]) == (query_id, doc_id)
        ]
        return _stack(on_disk + recent)

    def _stacks_in_force(
        self, pairs: list[tuple[str, str]]
    ) -> dict[tuple[str, str], list[tuple[str, int]]]:
        """``_grades_in_force`` of several pairs, reading the parts once."""
        events: dict[tuple[str, str], list[tuple[str, int]]] = {pair: [] for pair in pairs}
        on_disk = read_pairs(self.parts_dir, pairs).select("query_id", "doc_id", "kind", "grade")
        for query_id, doc_id, kind, grade in on_disk.rows():
            events[(query_id, doc_id)].append((kind, grade))
        for r in self._pending:
            pair = (r["query_id"], r["doc_id"])
            if pair in events:
                events[pair].append((r["kind"], r["grade"]))
        return {pair: _stack(e) for pair, e in events.items()}

    @_serialised
    def current_grade(self, query_id: str, doc_id: str) -> int | None:
        """The grade in force for a pair (ignoring repeats), None when unjudged."""
        judged = [
            grade for kind, grade in self._grades_in_force(query_id, doc_id) if kind == "judge"
        ]
        return judged[-1] if judged else None

    @_serialised
    def undo(self, query_id: str, doc_id: str, *, time: str | None = None) -> int | None:
        """Cancel the pair's most recent grade (the journal records the undo).

        Returns the grade in force afterwards: the previous grade after undoing a re-grade, None
        when the pair is unjudged again. Undoing a pair with nothing to undo writes nothing.
        """
        path = self.journal_path
        stack = self._grades_in_force(
            check_id(query_id, "query_id", path), check_id(doc_id, "doc_id", path)
        )
        if not stack:
            return None
        self._append(_undo_record(self.labeller, query_id, doc_id, time or now_iso()))
        judged = [grade for kind, grade in stack[:-1] if kind == "judge"]
        return judged[-1] if judged else None

    @_serialised
    def undo_many(
        self, pairs: list[tuple[str, str]], *, time: str | None = None
    ) -> list[int | None]:
        """``undo`` of each pair, with one journal write and one fsync (a near-duplicate group of
        thousands is taken back in one key): every undo is durable when this returns, or none
        is. Returns the grade in force afterwards for each pair, in order."""
        path = self.journal_path
        for query_id, doc_id in pairs:
            check_id(query_id, "query_id", path)
            check_id(doc_id, "doc_id", path)
        stacks = self._stacks_in_force(pairs)
        when = time or now_iso()
        records: list[dict[str, Any]] = []
        answers: list[int | None] = []
        for query_id, doc_id in pairs:
            stack = stacks[(query_id, doc_id)]
            if stack:
                stack.pop()  # a pair listed twice is undone twice, as two undo() calls would
                records.append(_undo_record(self.labeller, query_id, doc_id, when))
            judged = [grade for kind, grade in stack if kind == "judge"]
            answers.append(judged[-1] if judged else None)
        if records:
            self._append_many(records)
        return answers

    @_serialised
    def note(self, query_id: str, doc_id: str, text: str, *, time: str | None = None) -> None:
        """Attach a note to a pair (an empty text clears it); durable when this returns."""
        self._mark("note", query_id, doc_id, text, time)

    @_serialised
    def flag(self, query_id: str, doc_id: str, reason: str, *, time: str | None = None) -> None:
        """Flag a pair "unsure / needs discussion" with a reason (an empty one unflags it): a
        ``flag`` record, the reason in its note column; durable when this returns."""
        self._mark("flag", query_id, doc_id, reason, time)

    @_serialised
    def skip(self, query_id: str, doc_id: str, reason: str, *, time: str | None = None) -> None:
        """Record that the labeller passed a pair over, and why (a ``skip`` record, the reason in
        its note column); durable when this returns. A skip without a reason is refused: the
        reason is what makes it worth recording."""
        if isinstance(reason, str) and not reason.strip():
            raise InputError(self.journal_path, "a skip needs a reason", column="note")
        self._mark("skip", query_id, doc_id, reason, time)

    def _mark(self, kind: str, query_id: str, doc_id: str, text: str, time: str | None) -> None:
        path = self.journal_path
        if not isinstance(text, str):
            raise InputError(
                path, f"a {kind} must be text, got {type(text).__name__}", column="note"
            )
        self._append(
            {
                "kind": kind,
                "labeller": self.labeller,
                "query_id": check_id(query_id, "query_id", path),
                "doc_id": check_id(doc_id, "doc_id", path),
                "grade": None,
                "time": time or now_iso(),
                "seconds": None,
                "position": None,
                "note": text,
            }
        )

    @_serialised
    def write_batch(self, frame: pl.DataFrame) -> int:
        """Save many judgments at once as one part (for imports): one fsync, not one per row."""
        if frame.height == 0:
            return 0
        self.compact()  # keep seq order: journal first, then the batch
        seqs = pl.int_range(
            self._next_seq, self._next_seq + frame.height, eager=True, dtype=pl.Int64
        )
        batch = frame.with_columns(seq=seqs).select(list(JUDGMENT_SCHEMA)).cast(JUDGMENT_SCHEMA)
        write_part(self.parts_dir, batch)
        self._next_seq += frame.height
        self._wrote = True
        return frame.height

    # --- compaction and closing -------------------------------------------------------------
    @_serialised
    def compact(self) -> None:
        """Move the journal's records into a Parquet part, durably, then empty the journal."""
        if self._journal.closed:
            raise ValueError(f"{self.journal_path}: writer is closed")
        if self._pending:
            numbered = [(0, r) for r in self._pending]
            write_part(self.parts_dir, records_to_frame(numbered, self.journal_path))
            self._journal.truncate()  # only after the part is durable
            self._pending = []
            self._compact_at = COMPACT_EVERY
        tidy_parts(self.parts_dir)

    @property
    def closed(self) -> bool:
        return self._journal.closed

    @_serialised
    def close(self) -> None:
        """Compact and release the lock. Safe to call twice."""
        if self._journal.closed:
            return
        try:
            try:
                self.compact()
            except Exception as exc:  # the journal keeps the records; the next open folds them
                self._compaction_failed(exc)
            if self._wrote and self._on_wrote is not None:
                try:
                    self._on_wrote(self.labeller)
                except (OSError, StoreLockedError) as exc:  # only the "last session" time
                    self.warnings.append(f"could not note the session's end: {exc}")
        finally:
            self._journal.close()
            if self._on_closed is not None:
                self._on_closed(self)

    def __enter__(self) -> JudgmentWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def parts(self) -> int:
        return len(list_parts(self.parts_dir))


def _stack(events: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The (kind, grade) stack a pair's events leave: an undo cancels the latest grade."""
    stack: list[tuple[str, int]] = []
    for kind, grade in events:
        if kind == "undo":
            if stack:
                stack.pop()
        elif kind in GRADING_KINDS:
            stack.append((kind, grade))
    return stack


def _undo_record(labeller: str, query_id: str, doc_id: str, time: str) -> dict[str, Any]:
    """The journal record of an undo: a null grade (the judgments frame reads it as undone)."""
    return {
        "kind": "undo",
        "labeller": labeller,
        "query_id": query_id,
        "doc_id": doc_id,
        "grade": None,
        "time": time,
        "seconds": None,
        "position": None,
        "note": None,
    }
