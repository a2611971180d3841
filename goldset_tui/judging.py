"""A labeller's judging session, without a terminal.

Everything the judging screen decides lives here so it can be tested (and scripted) without
Textual: the blind order of each query's candidates, where to resume, what "next" means after a
grade, progress, pace, undo, and near-duplicate groups. The screen only draws what this says.

Durability is the writer's job (``Project.writer(labeller)``: ``record`` fsyncs before it
returns). The session changes its own state only *after* the writer returned, so anything the
screen shows as saved is on disk.

A pool of a million rows is sorted once by query (vectorised) and sliced per query on demand;
nothing loops over all rows in Python.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

import polars as pl

from goldset_tui import neardup
from goldset_tui.model import GradeScale, Judgment

# Pace is measured over the most recent judgments so a lunch break does not drag it down forever.
PACE_WINDOW = 20
# No pace is shown before this many judgments spanning at least this many seconds.
PACE_MIN_JUDGMENTS = 3
PACE_MIN_SECONDS = 10.0
# Gaps longer than this between two judgments are breaks, not judging time.
PACE_MAX_GAP_SECONDS = 300.0
# Queries whose candidates stay loaded (beyond those graded in this session).
VIEW_CACHE = 64
# A blind repeat (self-consistency check) comes back after this many ordinary judgments.
REPEAT_EVERY = 25


class Writer(Protocol):
    def record(self, judgment: Judgment) -> object: ...
    def undo(self, query_id: str, doc_id: str) -> object: ...
    def note(self, query_id: str, doc_id: str, text: str) -> object: ...
    def close(self) -> object: ...


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def blind_seed(labeller: str, query_id: str) -> int:
    # hashlib, not hash(): Python's str hash changes per process, and the order must be the same
    # every time this labeller opens this query (and reproducible for the position-bias check).
    digest = hashlib.sha256(f"{labeller}\x1f{query_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def blind_order(labeller: str, query_id: str, doc_ids: Sequence[str]) -> list[int]:
    """Indices into ``doc_ids`` in the order this labeller sees them.

    Sorted by doc_id first, so the order does not depend on the row order of the pool file.
    """
    by_id = sorted(range(len(doc_ids)), key=lambda i: doc_ids[i])
    random.Random(blind_seed(labeller, query_id)).shuffle(by_id)
    return by_id


@dataclass(frozen=True)
class Candidate:
    query_id: str
    doc_id: str
    title: str
    text: str
    position: int  # 0-based place in this labeller's order for the query
    systems: tuple[str, ...] = ()
    ranks: tuple[int, ...] = ()


@dataclass
class _QueryView:
    """One query's candidates in shown order, loaded when the query is first visited."""

    rows: list[dict]
    grades: dict[str, int]
    dup_label: list[int] | None = None  # per shown position, computed lazily
    changed: bool = False  # graded in this session: must never be evicted (it holds the truth)


@dataclass(frozen=True)
class Step:
    """What a grade/undo did, for the screen to report."""

    judgment: Judgment
    moved_query: bool = False
    all_done: bool = False


@dataclass
class _Pace:
    times: deque[float] = field(default_factory=lambda: deque(maxlen=PACE_WINDOW))

    def add(self, t: float) -> None:
        self.times.append(t)

    def per_minute(self) -> float | None:
        ts = list(self.times)
        if len(ts) < PACE_MIN_JUDGMENTS:
            return None
        busy = sum(min(b - a, PACE_MAX_GAP_SECONDS) for a, b in zip(ts, ts[1:], strict=False))
        # A burst of keys (or a script) says nothing about the pace: wait for some real time.
        return (len(ts) - 1) / busy * 60.0 if busy >= PACE_MIN_SECONDS else None


class JudgingSession:
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
    ) -> None:
        self.labeller = labeller
        self.scale = scale or GradeScale()
        self.writer = writer
        self._clock = clock
        self._now = now
        self._pace = _Pace()
        # (query_id, doc_id, grade before, kind): kind "repeat" for a blind repeat
        self._undo: list[tuple[str, str, int | None, str]] = []
        self._index_pool(frame, query_ids)
        self._index_judged(judged)
        self._views: dict[str, _QueryView] = {}
        self._notes = dict(notes or {})  # (query_id, doc_id) -> the latest note
        # Self-consistency: already-judged pairs served again, blind, every ``repeat_every``
        # judgments, recorded as kind "repeat" (they never replace the first grade).
        self._pending_repeats = [(q, d) for q, d in repeats if q in self._qindex]
        self._repeat_every = max(1, repeat_every)
        self._since_repeat = 0
        self.repeating: tuple[str, str] | None = None
        self._resume_at: tuple[int, int] | None = None
        self.qi = 0
        self.pos = 0
        self._shown_since = clock()
        self.resume()

    # ----- indexing (vectorised, once) ------------------------------------------------------
    def _index_pool(self, frame: pl.DataFrame, query_ids: Sequence[str] | None) -> None:
        cols = set(frame.columns)
        keep = [
            c
            for c in ("query_id", "query", "doc_id", "text", "title", "stratum", "systems", "ranks")
            if c in cols
        ]
        f = frame.select(keep).with_row_index("_row")
        per_query = f.group_by("query_id", maintain_order=True).agg(
            pl.len().alias("n"),
            pl.col("query").first(),
            (pl.col("stratum").first() if "stratum" in cols else pl.lit(None, pl.String)).alias(
                "stratum"
            ),
        )
        if query_ids is not None:
            wanted = pl.DataFrame({"query_id": list(query_ids)}, schema={"query_id": pl.String})
            per_query = (
                wanted.with_row_index("_order")
                .join(per_query, on="query_id", how="inner")
                .sort("_order")
                .drop("_order")
            )
        per_query = per_query.with_row_index("_q")
        f = f.join(per_query.select("query_id", "_q"), on="query_id", how="inner").sort(
            "_q", "_row"
        )
        starts = per_query["n"].cum_sum() - per_query["n"]
        self._pool = f.drop("_row", "_q")
        self.query_ids: list[str] = per_query["query_id"].to_list()
        self._qindex = {q: i for i, q in enumerate(self.query_ids)}
        self._starts: list[int] = starts.to_list()
        self._sizes: list[int] = per_query["n"].to_list()
        self._queries = per_query.select("query_id", "query", "stratum")
        self.total = int(sum(self._sizes))

    def _index_judged(self, judged: pl.DataFrame | None) -> None:
        self._done_counts = [0] * len(self.query_ids)
        self.judged_count = 0
        self._finished = 0
        if judged is None or judged.is_empty():
            self._judged = pl.DataFrame(
                schema={"query_id": pl.String, "doc_id": pl.String, "grade": pl.Int64}
            )
            self._jstarts: dict[str, tuple[int, int]] = {}
            return
        keys = self._pool.select("query_id", "doc_id")
        j = (
            judged.select("query_id", "doc_id", pl.col("grade").cast(pl.Int64))
            .filter(pl.col("grade").is_not_null())
            .unique(subset=["query_id", "doc_id"], keep="last")
            .join(keys, on=["query_id", "doc_id"], how="semi")
            .sort("query_id")
        )
        counts = j.group_by("query_id", maintain_order=True).len()
        starts = counts["len"].cum_sum() - counts["len"]
        self._judged = j
        self._jstarts = {
            q: (s, n)
            for q, s, n in zip(
                counts["query_id"].to_list(), starts.to_list(), counts["len"].to_list(), strict=True
            )
        }
        for q, (_, n) in self._jstarts.items():
            self._done_counts[self._qindex[q]] = n
        self.judged_count = sum(self._done_counts)
        self._finished = sum(
            1 for d, n in zip(self._done_counts, self._sizes, strict=True) if d >= n
        )

    # ----- per-query views ------------------------------------------------------------------
    def _view(self, qi: int) -> _QueryView:
        qid = self.query_ids[qi]
        view = self._views.get(qid)
        if view is None:
            rows = self._pool.slice(self._starts[qi], self._sizes[qi]).to_dicts()
            order = blind_order(self.labeller, qid, [r["doc_id"] for r in rows])
            s, n = self._jstarts.get(qid, (0, 0))
            part = self._judged.slice(s, n)
            grades = dict(zip(part["doc_id"].to_list(), part["grade"].to_list(), strict=True))
            view = _QueryView(rows=[rows[i] for i in order], grades=grades)
            self._evict()
            self._views[qid] = view
        return view

    def _evict(self) -> None:
        # Keep memory flat on huge pools: only recently visited queries stay loaded, except those
        # graded in this session (their grades exist only here and in the journal).
        clean = [q for q, v in self._views.items() if not v.changed]
        for qid in clean[: max(0, len(clean) - VIEW_CACHE)]:
            del self._views[qid]

    @property
    def query_id(self) -> str:
        return self.query_ids[self.qi]

    @property
    def query_text(self) -> str:
        return self._queries["query"][self.qi]

    @property
    def stratum(self) -> str | None:
        return self._queries["stratum"][self.qi]

    @property
    def size(self) -> int:
        return self._sizes[self.qi]

    @property
    def current(self) -> Candidate:
        row = self._view(self.qi).rows[self.pos]
        return Candidate(
            query_id=self.query_id,
            doc_id=row["doc_id"],
            title=row.get("title") or "",
            text=row.get("text") or "",
            position=self.pos,
            systems=tuple(row.get("systems") or ()),
            ranks=tuple(row.get("ranks") or ()),
        )

    def grade_at(self, pos: int, qi: int | None = None) -> int | None:
        view = self._view(self.qi if qi is None else qi)
        return view.grades.get(view.rows[pos]["doc_id"])

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

    # ----- progress -------------------------------------------------------------------------
    def query_progress(self, qi: int | None = None) -> tuple[int, int]:
        qi = self.qi if qi is None else qi
        return self._done_counts[qi], self._sizes[qi]

    def overall_progress(self) -> tuple[int, int]:
        return self.judged_count, self.total

    def is_finished(self, qi: int | None = None) -> bool:
        done, size = self.query_progress(qi)
        return done >= size

    @property
    def finished_queries(self) -> int:
        return self._finished

    def pace_per_minute(self) -> float | None:
        return self._pace.per_minute()

    def minutes_left(self) -> float | None:
        pace = self.pace_per_minute()
        if not pace:
            return None
        return (self.total - self.judged_count) / pace

    # ----- moving ---------------------------------------------------------------------------
    def _land(self, qi: int, pos: int) -> None:
        self.qi, self.pos = qi, pos
        self._shown_since = self._clock()

    def move(self, delta: int) -> None:
        if self._leave_repeat():
            return  # moving away from a repeat goes back to where the labeller was
        self._land(self.qi, max(0, min(self.size - 1, self.pos + delta)))

    def first_unjudged_in(self, qi: int) -> int | None:
        view = self._view(qi)
        for pos, row in enumerate(view.rows):
            if row["doc_id"] not in view.grades:
                return pos
        return None

    def next_query(self, delta: int = 1) -> None:
        self._leave_repeat()
        qi = max(0, min(len(self.query_ids) - 1, self.qi + delta))
        if qi != self.qi:
            pos = self.first_unjudged_in(qi)
            self._land(qi, 0 if pos is None else pos)

    def query_index(self, query_id: str) -> int | None:
        return self._qindex.get(query_id)

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
    def _set_grade(self, qi: int, doc_id: str, grade: int | None) -> None:
        view = self._view(qi)
        view.changed = True
        had = doc_id in view.grades
        if grade is None:
            view.grades.pop(doc_id, None)
        else:
            view.grades[doc_id] = grade
        now_has = grade is not None
        delta = int(now_has) - int(had)
        was_finished = self._done_counts[qi] >= self._sizes[qi]
        self._done_counts[qi] += delta
        self.judged_count += delta
        # Kept incrementally: summing over 25,000 queries on every key would be wasted work.
        self._finished += int(self._done_counts[qi] >= self._sizes[qi]) - int(was_finished)

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

    # ----- blind repeats --------------------------------------------------------------------
    def _position_of(self, qi: int, doc_id: str) -> int:
        return next(i for i, r in enumerate(self._view(qi).rows) if r["doc_id"] == doc_id)

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
        self._undo.append((query_id, doc_id, None, "repeat"))
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

    def grade_group(self) -> list[Judgment]:
        """Give every near-duplicate of the current candidate the current candidate's grade."""
        if self.repeating is not None:
            return []
        grade = self.current_grade
        if grade is None:
            return []
        here = self.pos
        out = []
        for pos in self.duplicates_of(here):
            if self.grade_at(pos) != grade:
                out.append(self._record(pos, grade, 0.0, kind="judge"))
        return out

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

    # ----- near-duplicates ------------------------------------------------------------------
    def _dup_labels(self) -> list[int]:
        view = self._view(self.qi)
        if view.dup_label is None:
            view.dup_label = neardup.groups([r.get("text") for r in view.rows])
        return view.dup_label

    def duplicates_of(self, pos: int | None = None) -> list[int]:
        """Shown positions of the other members of the candidate's near-duplicate group."""
        pos = self.pos if pos is None else pos
        labels = self._dup_labels()
        return [i for i, label in enumerate(labels) if label == labels[pos] and i != pos]

    # ----- finding queries ------------------------------------------------------------------
    def search_queries(self, needle: str, limit: int = 50) -> list[tuple[str, str]]:
        """Queries whose id or text contains ``needle`` (case-insensitive), in judging order."""
        needle = needle.strip().lower()
        q = self._queries
        if needle:
            q = q.filter(
                pl.col("query_id").str.to_lowercase().str.contains(needle, literal=True)
                | pl.col("query").str.to_lowercase().str.contains(needle, literal=True)
            )
            # An exact id first: typing "q5" should not bury q5 under q50..q59.
            q = q.sort(pl.col("query_id").str.to_lowercase() != needle, maintain_order=True)
        q = q.head(limit)
        return list(zip(q["query_id"].to_list(), q["query"].to_list(), strict=True))
