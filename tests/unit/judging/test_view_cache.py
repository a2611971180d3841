"""The per-query views stay bounded over a long day: a query graded in this session is evicted
like any other (least recently used first), and its grades survive eviction (they were kept
forever with their candidates' texts: memory grew with every query graded, no plateau)."""

from __future__ import annotations

import polars as pl

from goldset_tui.judging import VIEW_CACHE, JudgingSession


def pool(queries: int, per_query: int = 3) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "query_id": [f"q{q:04d}" for q in range(queries) for _ in range(per_query)],
            "query": [f"query {q}" for q in range(queries) for _ in range(per_query)],
            "doc_id": [f"d{q}-{d}" for q in range(queries) for d in range(per_query)],
            "text": ["some text " * 50] * (queries * per_query),
        }
    )


def test_views_of_graded_queries_are_evicted_and_their_grades_kept() -> None:
    queries = VIEW_CACHE * 3
    s = JudgingSession(pool(queries), "ana")
    given: dict[tuple[str, str], int] = {}
    for _ in range(queries):
        c = s.current
        s.grade(1 + len(given) % 2)  # one grade per query, then on to the next query
        given[(c.query_id, c.doc_id)] = 1 + (len(given) % 2)
        s.next_query(1)
        assert len(s._views) <= VIEW_CACHE
    assert s.judged_count == queries
    # Every grade is still there, read back through views loaded again after eviction.
    for (query_id, doc_id), grade in given.items():
        qi = s.query_index(query_id)
        assert qi is not None
        pos = s._position_of(qi, doc_id)
        assert s.grade_at(pos, qi) == grade
        assert s.query_progress(qi) == (1, 3)
    # Undo reaches back to a query whose view was evicted long ago, and restores it unjudged.
    while s.can_undo:
        s.undo()
    assert s.judged_count == 0 and len(s._views) <= VIEW_CACHE
    assert all(s.grade_at(0, qi) is None for qi in range(queries))


def test_the_current_query_is_never_the_one_evicted() -> None:
    s = JudgingSession(pool(VIEW_CACHE + 5), "ana")
    s.grade(2)  # graded in query 0, then the cursor visits every other query
    for qi in range(1, VIEW_CACHE + 5):
        s.grade_at(0, qi)
        s.grade_at(0, 0)  # query 0 used again each time: the most recent, kept loaded
    assert s.query_ids[0] in s._views
