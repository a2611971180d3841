"""One labeller's judgment writer: durable saves, undo, notes, compaction.

Saving a judgment is one journal append plus fdatasync, whatever the size of the store. Every
``COMPACT_EVERY`` records (and on close) the journal's records go into a new Parquet part and the
journal is emptied, so replay on the next open stays short.
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.model import GradeScale, Judgment
from goldset_tui.scalar import as_int
from goldset_tui.store.files import now_iso, remove_stale_tmp
from goldset_tui.store.frames import GRADING_KINDS, JUDGMENT_SCHEMA, records_to_frame
from goldset_tui.store.journal import Journal, replay_numbered
from goldset_tui.store.parts import last_seq, list_parts, read_pair, tidy_parts, write_part

if TYPE_CHECKING:
    from goldset_tui.store.project import Project

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
    """Appends one labeller's judgments; holds that labeller's journal lock until closed."""

    def __init__(self, project: Project, labeller: str):
        self.project = project
        self.labeller = labeller
        self.scale = project.scale
        self.journal_path, self.parts_dir = project.labeller_paths(labeller)
        # The judging screen may save from a worker thread while the UI thread undoes or closes.
        self._mutex = threading.RLock()
        self._journal = Journal(self.journal_path, lock=True)
        try:
            self.warnings = list(self._journal.warnings)
            remove_stale_tmp(self.parts_dir)
            self._pending: list[dict[str, Any]] = []
            self._compact_at = COMPACT_EVERY
            self._wrote = False
            numbered, warnings = replay_numbered(self.journal_path)
            self.warnings += warnings
            in_journal = records_to_frame(numbered, self.journal_path)  # validates every line
            compacted = last_seq(self.parts_dir)
            leftover = in_journal.filter(pl.col("seq") > compacted)
            self._next_seq = max(compacted, as_int(in_journal["seq"].max() or 0)) + 1
            # Records a crashed session left in the journal become a part now, so the journal is
            # short again and replay stays fast.
            if leftover.height:
                write_part(self.parts_dir, leftover)
            if numbered:
                self._journal.truncate()
        except BaseException:
            self._journal.close()
            raise

    # --- saving -----------------------------------------------------------------------------
    def _append(self, record: dict[str, Any]) -> int:
        seq = record["seq"] = self._next_seq
        self._journal.append(record)  # durable from here on
        self._next_seq += 1
        self._wrote = True
        self._pending.append(record)
        if len(self._pending) >= self._compact_at:
            try:
                self.compact()
            except OSError as exc:
                # The record is already durable; a failed compaction must not turn a successful
                # save into an error. The journal keeps everything; try again later.
                self._compact_at = len(self._pending) + COMPACT_EVERY
                self.warnings.append(f"{self.parts_dir}: compaction failed, will retry: {exc}")
        return seq

    @_serialised
    def record(self, j: Judgment) -> int:
        """Save a judgment (or a ``repeat``); durable on disk when this returns. Returns its seq."""
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
        return self._append(
            {
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
        )

    def _grades_in_force(self, query_id: str, doc_id: str) -> list[tuple[str, int]]:
        """The (kind, grade) stack of this pair after its undos, oldest first."""
        on_disk = read_pair(self.parts_dir, query_id, doc_id).select("kind", "grade").rows()
        recent = [
            (r["kind"], r["grade"])
            for r in self._pending
            if (r["query_id"], r["doc_id"]) == (query_id, doc_id)
        ]
        stack: list[tuple[str, int]] = []
        for kind, grade in on_disk + recent:
            if kind == "undo":
                if stack:
                    stack.pop()
            elif kind in GRADING_KINDS:
                stack.append((kind, grade))
        return stack

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
        self._append(
            {
                "kind": "undo",
                "labeller": self.labeller,
                "query_id": query_id,
                "doc_id": doc_id,
                "grade": None,
                "time": time or now_iso(),
                "seconds": None,
                "position": None,
                "note": None,
            }
        )
        judged = [grade for kind, grade in stack[:-1] if kind == "judge"]
        return judged[-1] if judged else None

    @_serialised
    def note(self, query_id: str, doc_id: str, text: str, *, time: str | None = None) -> None:
        """Attach a note to a pair (an empty text clears it); durable when this returns."""
        path = self.journal_path
        if not isinstance(text, str):
            raise InputError(path, f"a note must be text, got {type(text).__name__}", column="note")
        self._append(
            {
                "kind": "note",
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
            self.compact()
            if self._wrote:
                self.project._touch_labeller(self.labeller)
        finally:
            self._journal.close()
            self.project._forget_writer(self)

    def __enter__(self) -> JudgmentWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def parts(self) -> int:
        return len(list_parts(self.parts_dir))
