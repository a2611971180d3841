"""The session's state: the pool indexed once by query (vectorised), each query's candidates in
blind order, loaded when first visited, the labeller's grades, progress and the cursor. What comes
next after a key is decided in ``session.py``."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

import polars as pl

from goldset_tui.io.trec import QRELS_SCHEMA
from goldset_tui.judging.order import blind_order
from goldset_tui.judging.pace import Pace
from goldset_tui.model import GradeScale, Judgment
from goldset_tui.store.files import now_iso

# Queries whose candidates stay loaded, least recently used evicted first. A query graded in this
# session is evicted like any other: its grades live on in ``_graded`` (small: ids and numbers),
# only its rows (the candidates' texts) go. Keeping every graded query's view grew memory by
# about 5 MB per 1,000 keys over a day, with no plateau (bench/judge_memory.py).
VIEW_CACHE = 64


class Writer(Protocol):
    def record(self, judgment: Judgment) -> object: ...
    def undo(self, query_id: str, doc_id: str) -> object: ...
    def note(self, query_id: str, doc_id: str, text: str) -> object: ...
    def flag(self, query_id: str, doc_id: str, reason: str) -> object: ...
    def skip(self, query_id: str, doc_id: str, reason: str) -> object: ...
    def close(self) -> object: ...


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

    rows: list[dict[str, Any]]
    grades: dict[str, int]
    dup_label: list[int] | None = None  # per shown position, computed lazily


class UndoEntry(NamedTuple):
    """One grade ``u`` can take back: the pair, its grade before, the kind ("judge", or "repeat"
    for a blind repeat) and ``group``: the same number on every judgment one ``d`` gave, so one
    ``u`` takes back the whole group (None for a grade given with a grade key)."""

    query_id: str
    doc_id: str
    before: int | None
    kind: str
    group: int | None = None


@dataclass(frozen=True)
class Step:
    """What a grade/undo did, for the screen to report. ``before``: the grade a re-grade replaced
    (None for a first grade); ``undone``: how many grades one undo took back (a whole group)."""

    judgment: Judgment
    moved_query: bool = False
    all_done: bool = False
    before: int | None = None
    undone: int = 1


class SessionState:
    """The pool, the labeller's grades and the cursor, which ``JudgingSession`` moves."""

    def __init__(
        self,
        frame: pl.DataFrame,
        labeller: str,
        *,
        writer: Writer | None,
        judged: pl.DataFrame | None,
        scale: GradeScale | None,
        query_ids: Sequence[str] | None,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], str] = now_iso,
    ) -> None:
        self.labeller = labeller
        self.scale = scale or GradeScale()
        self.writer = writer
        self._clock = clock
        self._now = now
        self._pace = Pace()
        # What u takes back, newest last (rebuilt from the store's history on open: history.py)
        self._undo: list[UndoEntry] = []
        # Counts every landing of the cursor (a move, an undo, a grade that moves on): the screen
        # arms d with it, so any movement since the grade disarms d.
        self.landings = 0
        # ``goldset judge --order adaptive``: (rows, grades) -> the next position; None = blind order
        self.picker: Callable[[list[dict[str, Any]], dict[str, int]], int | None] | None = None
        # Pairs passed over with a reason (marks.py): navigation does not serve them again.
        self._skipped: set[tuple[str, str]] = set()
        self._index_pool(frame, query_ids)
        self._index_judged(judged)
        self._views: dict[str, _QueryView] = {}  # least recently used first
        # query_id -> the grades dict of a query graded in this session: the same object as its
        # view's while loaded, so a view evicted and loaded again finds this session's grades.
        self._graded: dict[str, dict[str, int]] = {}
        self.qi = 0
        self.pos = 0
        self._shown_since = clock()

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
            self._judged = pl.DataFrame(schema=QRELS_SCHEMA)
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
        view = self._views.pop(qid, None)
        if view is None:
            view = self._load_view(qi)
            self._evict()
        self._views[qid] = view  # the most recently used, last
        return view

    def _load_view(self, qi: int) -> _QueryView:
        """Query ``qi``'s candidates and grades as the pool and store had them when the session
        opened. Reads only what never changes after ``__init__``, so a worker thread may call it
        (``preload``) while the UI thread judges."""
        qid = self.query_ids[qi]
        rows = self._pool.slice(self._starts[qi], self._sizes[qi]).to_dicts()
        order = blind_order(self.labeller, qid, [r["doc_id"] for r in rows])
        grades = self._graded.get(qid)  # graded in this session: those are the truth
        if grades is None:
            s, n = self._jstarts.get(qid, (0, 0))
            part = self._judged.slice(s, n)
            grades = dict(zip(part["doc_id"].to_list(), part["grade"].to_list(), strict=True))
        return _QueryView(rows=[rows[i] for i in order], grades=grades)

    def upcoming_query(self) -> int | None:
        """The query grading goes on to when this one is finished (the next unfinished one after
        it, wrapping), None when there is none. What ``preload`` is worth calling on."""
        count = len(self.query_ids)
        for step in range(1, count):
            qi = (self.qi + step) % count
            if self._done_counts[qi] < self._sizes[qi]:
                return qi
        return None

    def is_loaded(self, qi: int) -> bool:
        return self.query_ids[qi] in self._views

    def adopt(self, qi: int, view: _QueryView) -> bool:
        """Keep a view loaded ahead (``preload``) unless the query was visited meanwhile (then
        the one in use holds the truth). UI thread only. True when it was kept."""
        qid = self.query_ids[qi]
        if qid in self._views:
            return False
        if qid in self._graded:  # graded, and evicted, since the worker loaded it
            view.grades = self._graded[qid]
        self._evict()
        self._views[qid] = view
        return True

    def _evict(self) -> None:
        """Keep memory flat on huge pools and long days: at most VIEW_CACHE views stay loaded
        (room is made for one more), the least recently used go first. The current query's view
        is the most recently used, never the one to go."""
        while len(self._views) >= VIEW_CACHE:
            del self._views[next(iter(self._views))]

    @property
    def query_id(self) -> str:
        return self.query_ids[self.qi]

    @property
    def query_text(self) -> str:
        text: str = self._queries["query"][self.qi]
        return text

    @property
    def stratum(self) -> str | None:
        stratum: str | None = self._queries["stratum"][self.qi]
        return stratum

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

    def first_unjudged_in(self, qi: int) -> int | None:
        view = self._view(qi)
        if self.picker is not None:
            return self.picker(view.rows, view.grades)
        qid = self.query_ids[qi]
        for pos in range(len(view.rows)):
            if self._open(qid, view, pos):
                return pos
        return None

    def _open(self, query_id: str, view: _QueryView, pos: int) -> bool:
        """Whether grading should serve this candidate: unjudged and not skipped."""
        doc_id = view.rows[pos]["doc_id"]
        return doc_id not in view.grades and (query_id, doc_id) not in self._skipped

    def _position_of(self, qi: int, doc_id: str) -> int:
        return next(i for i, r in enumerate(self._view(qi).rows) if r["doc_id"] == doc_id)

    def query_index(self, query_id: str) -> int | None:
        return self._qindex.get(query_id)

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

    # ----- changing state -------------------------------------------------------------------
    def _land(self, qi: int, pos: int) -> None:
        self.qi, self.pos = qi, pos
        self.landings += 1
        self._shown_since = self._clock()

    def _set_grade(self, qi: int, doc_id: str, grade: int | None) -> None:
        view = self._view(qi)
        self._graded[self.query_ids[qi]] = view.grades  # outlives the view (see VIEW_CACHE)
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
