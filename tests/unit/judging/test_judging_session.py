"""JudgingSession without a terminal: blind order, resume, advancing, undo, progress, pace."""

from __future__ import annotations

import hashlib
import random

import polars as pl
import pytest

from goldset_tui.judging import JudgingSession, blind_order, blind_seed
from goldset_tui.model import GradeScale, Judgment


class Writer:
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def record(self, j: Judgment) -> None:
        self.calls.append(("record", j))

    def undo(self, q: str, d: str) -> None:
        self.calls.append(("undo", q, d))

    def note(self, q: str, d: str, text: str) -> None:
        self.calls.append(("note", q, d, text))

    def close(self) -> None:
        self.calls.append(("close",))


class BrokenWriter(Writer):
    def record(self, j: Judgment) -> None:
        raise OSError(28, "No space left on device")


def pool(queries: int = 3, per_query: int = 4) -> pl.DataFrame:
    rows = [
        {
            "query_id": f"q{q}",
            "query": f"query {q}",
            "doc_id": f"d{q}-{d}",
            "text": f"text {q} {d} " + "w " * d,
        }
        for q in range(queries)
        for d in range(per_query)
    ]
    return pl.DataFrame(rows)


def test_blind_order_is_seeded_by_labeller_and_query_with_sha256() -> None:
    ids = [f"d{i}" for i in range(40)]
    # Independent re-derivation of the documented rule: sha256("labeller\x1fquery")[:8] seeds
    # random.Random, which shuffles the candidates sorted by doc id.
    seed = int.from_bytes(hashlib.sha256(b"alice\x1fq7").digest()[:8], "big")
    expected = sorted(range(40), key=lambda i: ids[i])
    random.Random(seed).shuffle(expected)
    assert blind_seed("alice", "q7") == seed
    assert blind_order("alice", "q7", ids) == expected
    assert blind_order("alice", "q7", ids) != blind_order("bob", "q7", ids)
    assert blind_order("alice", "q7", ids) != blind_order("alice", "q8", ids)


def test_blind_order_ignores_pool_row_order() -> None:
    ids = [f"d{i}" for i in range(10)]
    shown = [ids[i] for i in blind_order("alice", "q", ids)]
    rev = list(reversed(ids))
    assert [rev[i] for i in blind_order("alice", "q", rev)] == shown


def test_blind_order_is_not_the_pool_order_and_hides_position_bias() -> None:
    # Over many queries, where a pool's first candidate lands should be spread out, not stuck at 0.
    ids = [f"d{i:02d}" for i in range(40)]
    firsts = [blind_order("alice", f"q{i}", ids).index(0) for i in range(400)]
    assert sum(1 for f in firsts if f == 0) < 40  # ~10 expected by chance
    assert len(set(firsts)) > 30


def test_grade_records_position_seconds_and_advances() -> None:
    t = iter(range(0, 10_000, 10))
    w = Writer()
    s = JudgingSession(pool(), "alice", writer=w, clock=lambda: float(next(t)), now=lambda: "T")
    first = s.current
    assert (s.qi, s.pos) == (0, 0)
    step = s.grade(2)
    ((kind, j),) = w.calls
    assert kind == "record"
    assert (j.labeller, j.query_id, j.doc_id, j.grade, j.position, j.time) == (
        "alice",
        "q0",
        first.doc_id,
        2,
        0,
        "T",
    )
    assert j.seconds == 10.0
    assert not step.moved_query and s.pos == 1
    assert s.query_progress() == (1, 4) and s.overall_progress() == (1, 12)


def test_grade_outside_scale_is_refused_and_nothing_written() -> None:
    w = Writer()
    s = JudgingSession(pool(), "alice", writer=w, scale=GradeScale.from_range(1, 5))
    with pytest.raises(ValueError):
        s.grade(0)
    assert w.calls == []
    s.grade(5)
    assert w.calls[0][1].grade == 5


def test_failed_write_changes_nothing() -> None:
    s = JudgingSession(pool(), "alice", writer=BrokenWriter())
    before = (s.qi, s.pos)
    with pytest.raises(OSError):
        s.grade(1)
    assert (s.qi, s.pos) == before
    assert s.overall_progress() == (0, 12)
    assert s.current_grade is None and not s.can_undo


def test_finishing_a_query_moves_on_and_skips_judged_ones() -> None:
    s = JudgingSession(pool(), "alice", writer=Writer())
    s.move(2)  # jump ahead; grading from here must come back for the skipped ones
    order = []
    for _ in range(4):
        order.append(s.pos)
        step = s.grade(1)
    assert order == [2, 3, 0, 1]
    assert step.moved_query and s.query_id == "q1" and s.pos == 0
    assert s.is_finished(0) and s.finished_queries == 1
    s.goto_query("q0")
    s.undo()  # un-finishes q0
    assert not s.is_finished(0) and s.finished_queries == 0


def test_all_done_stays_put() -> None:
    s = JudgingSession(pool(1, 2), "alice", writer=Writer())
    s.grade(0)
    step = s.grade(3)
    assert step.all_done and s.overall_progress() == (2, 2)


def test_resume_on_first_unjudged_from_store_grades() -> None:
    p = pool()
    s0 = JudgingSession(p, "alice")
    order_q0 = [s0._view(0).rows[i]["doc_id"] for i in range(4)]
    order_q1 = [s0._view(1).rows[i]["doc_id"] for i in range(4)]
    judged = pl.DataFrame(
        {
            "query_id": ["q0"] * 4 + ["q1", "q1", "q1", "zz"],
            "doc_id": order_q0 + [order_q1[0], order_q1[2], order_q1[1], "nope"],
            "grade": [1, 2, 0, 3, 2, 1, None, 3],  # an undone pair (null) counts as unjudged
        }
    )
    s = JudgingSession(p, "alice", judged=judged)
    assert s.query_id == "q1" and s.current.doc_id == order_q1[1]
    assert s.overall_progress() == (6, 12)  # the pair outside the pool is not counted
    assert s.finished_queries == 1
    assert s.is_finished(0)
    s.next_query(-1)
    assert s.query_id == "q0" and s.current_grade == 1  # revisit a finished query


def test_regrade_counts_once_and_latest_wins() -> None:
    w = Writer()
    s = JudgingSession(pool(), "alice", writer=w)
    s.grade(1)
    s.move(-1)
    s.grade(3)
    assert s.overall_progress() == (1, 12)
    s.move(-10)
    assert s.current_grade == 3


def test_undo_records_and_returns_to_the_candidate() -> None:
    w = Writer()
    s = JudgingSession(pool(1, 2), "alice", writer=w)
    doc = s.current.doc_id
    s.grade(2)
    assert s.pos == 1
    step = s.undo()
    assert w.calls[-1] == ("undo", "q0", doc)
    assert step is not None and step.judgment.kind == "undo"
    assert s.pos == 0 and s.current_grade is None and s.overall_progress() == (0, 2)
    assert s.undo() is None


def test_undo_across_a_query_boundary() -> None:
    s = JudgingSession(pool(2, 1), "alice", writer=Writer())
    s.grade(1)
    assert s.query_id == "q1"
    step = s.undo()
    assert step.moved_query and s.query_id == "q0"


def test_pace_and_time_left_from_the_clock() -> None:
    # 3 judgments 30 s apart: 2 intervals in 60 s = 2 per minute; 9 left -> 4.5 minutes.
    now = [0.0]
    s = JudgingSession(pool(), "alice", clock=lambda: now[0])
    for t in (0.0, 30.0, 60.0):
        now[0] = t
        s.grade(1)
    assert s.pace_per_minute() == pytest.approx(2.0)
    assert s.minutes_left() == pytest.approx(4.5)


def test_no_pace_from_a_burst_of_keys() -> None:
    now = [0.0]
    s = JudgingSession(pool(), "alice", clock=lambda: now[0])
    for t in (0.0, 0.1, 0.2, 0.3):
        now[0] = t
        s.grade(1)
    assert s.pace_per_minute() is None and s.minutes_left() is None
    now[0] = 2.0
    s.move(-1)
    assert s.pace_per_minute() is None  # two judgments are not a pace either
    s2 = JudgingSession(pool(), "alice", clock=lambda: now[0])
    for t in (0.0, 30.0):
        now[0] = t
        s2.grade(1)
    assert s2.pace_per_minute() is None


def test_pace_ignores_breaks() -> None:
    now = [0.0]
    s = JudgingSession(pool(), "alice", clock=lambda: now[0])
    for t in (0.0, 30.0, 3630.0):  # an hour for lunch between the 2nd and 3rd
        now[0] = t
        s.grade(1)
    assert s.pace_per_minute() == pytest.approx(2 / (330 / 60))


def test_goto_and_search_queries() -> None:
    s = JudgingSession(pool(5), "alice")
    assert s.goto_query("q3") and s.query_id == "q3"
    assert not s.goto_query("nope") and s.query_id == "q3"
    assert s.search_queries("QUERY 4") == [("q4", "query 4")]
    assert [q for q, _ in s.search_queries("")] == ["q0", "q1", "q2", "q3", "q4"]
    assert s.search_queries("[.*") == []  # literal, not a regex
    rows = [{"query_id": q, "query": "x", "doc_id": "d", "text": "t"} for q in ("q10", "q11", "Q1")]
    odd = JudgingSession(pl.DataFrame(rows), "alice")
    assert [q for q, _ in odd.search_queries("q1")] == ["Q1", "q10", "q11"]  # the exact id first


def test_assignment_restricts_and_orders_queries() -> None:
    s = JudgingSession(pool(4), "alice", query_ids=["q3", "q1", "missing"])
    assert s.query_ids == ["q3", "q1"]
    assert s.overall_progress() == (0, 8)


def test_note_and_close_go_to_the_writer() -> None:
    w = Writer()
    s = JudgingSession(pool(), "alice", writer=w)
    s.note("check [bold] this")
    s.close()
    assert w.calls == [("note", "q0", s.current.doc_id, "check [bold] this"), ("close",)]


def test_grade_group_gives_duplicates_the_same_grade() -> None:
    rows = [
        {
            "query_id": "q",
            "query": "x",
            "doc_id": "a",
            "text": "The quick brown fox jumps over the lazy dog.",
        },
        {
            "query_id": "q",
            "query": "x",
            "doc_id": "b",
            "text": "the QUICK brown fox jumps over the lazy dog",
        },
        {
            "query_id": "q",
            "query": "x",
            "doc_id": "c",
            "text": "Something else entirely, about sqlite locking.",
        },
    ]
    w = Writer()
    s = JudgingSession(pl.DataFrame(rows), "alice", writer=w)
    while s.current.doc_id != "a":
        s.move(1)
    a_pos = s.pos
    assert [s._view(0).rows[p]["doc_id"] for p in s.duplicates_of()] == ["b"]
    assert s.grade_group() == []  # nothing to copy yet
    s.grade(2)
    s.move(a_pos - s.pos)
    done = s.grade_group()
    assert [(j.doc_id, j.grade) for j in done] == [("b", 2)]
    assert s.overall_progress() == (2, 3)


def test_grades_survive_visiting_many_other_queries() -> None:
    # More queries than the session keeps loaded: a graded query must not be reloaded stale.
    s = JudgingSession(pool(queries=200, per_query=2), "alice", writer=Writer())
    s.grade(3)
    first = s._view(0).rows[0]["doc_id"]
    for _ in range(199):
        s.next_query(1)
    s.goto_query("q0")
    s.move(-5)
    assert s.current.doc_id == first and s.current_grade == 3
    s.grade(2)  # regrade: still one judged pair, not two
    assert s.overall_progress() == (1, 400) and s.query_progress(0) == (1, 2)
