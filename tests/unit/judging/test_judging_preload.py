"""Loading the next query ahead (for the judging screen's worker): the view built off the UI
thread is the one the session would build itself, and never replaces one that holds grades."""

from __future__ import annotations

import polars as pl

from goldset_tui.judging import JudgingSession
from goldset_tui.model import Judgment

SAME = "Rotate an API key: create a second key, deploy it, then revoke the first one for good."


class Writer:
    def record(self, j: Judgment) -> None: ...
    def undo(self, q: str, d: str) -> None: ...
    def note(self, q: str, d: str, text: str) -> None: ...
    def close(self) -> None: ...


def pool(queries: int = 4, per_query: int = 5) -> pl.DataFrame:
    rows = [
        {
            "query_id": f"q{q}",
            "query": f"query {q}",
            "doc_id": f"q{q}-d{d}",
            "text": SAME if d < 2 else f"Document {d} of query {q} says something else entirely.",
        }
        for q in range(queries)
        for d in range(per_query)
    ]
    return pl.DataFrame(rows)


def test_a_preloaded_view_is_the_one_the_session_builds() -> None:
    s = JudgingSession(pool(), "ana", writer=Writer())
    upcoming = s.upcoming_query()
    assert upcoming == 1 and not s.is_loaded(1)
    view = s.preload(1)  # what the worker thread runs
    assert not s.is_loaded(1)  # nothing changed in the session by building it
    own = JudgingSession(pool(), "ana", writer=Writer())
    own.next_query(1)
    assert [r["doc_id"] for r in view.rows] == [r["doc_id"] for r in own._view(1).rows]
    assert view.dup_label == own._dup_labels()
    assert s.adopt(1, view) and s.is_loaded(1)
    s.next_query(1)
    assert s._view(1) is view and s.duplicates_of() == own.duplicates_of()


def test_adopt_never_replaces_a_view_in_use() -> None:
    judged = pl.DataFrame({"query_id": ["q1"], "doc_id": ["q1-d3"], "grade": [2]})
    s = JudgingSession(pool(), "ana", writer=Writer(), judged=judged)
    stale = s.preload(1)
    s.next_query(1)
    s.grade(3)  # graded in this session while the worker was building
    graded = dict(s._view(1).grades)
    assert not s.adopt(1, stale)
    assert s._view(1).grades == graded and len(graded) == 2
    assert stale.grades == {"q1-d3": 2}  # the store's grades when the session opened


def test_upcoming_skips_finished_queries_and_wraps() -> None:
    finished = pl.DataFrame(
        {"query_id": ["q1"] * 5, "doc_id": [f"q1-d{d}" for d in range(5)], "grade": [1] * 5}
    )
    s = JudgingSession(pool(), "ana", writer=Writer(), judged=finished)
    assert s.qi == 0 and s.upcoming_query() == 2
    s.goto_query("q3")
    assert s.upcoming_query() == 0
    alone = JudgingSession(pool(queries=1), "ana", writer=Writer())
    assert alone.upcoming_query() is None
