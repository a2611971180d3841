"""Blind repeats: already-judged pairs come back later, without their first grade, are recorded as
kind "repeat" and never change the grade in force."""

from __future__ import annotations

import polars as pl

from goldset_tui.judging import JudgingSession
from goldset_tui.model import Judgment


class Writer:
    def __init__(self) -> None:
        self.records: list[Judgment] = []
        self.undos: list[tuple[str, str]] = []

    def record(self, j: Judgment) -> None:
        self.records.append(j)

    def undo(self, q: str, d: str) -> None:
        self.undos.append((q, d))

    def note(self, q: str, d: str, text: str) -> None: ...

    def close(self) -> None: ...


def pool(queries: int = 3, per_query: int = 4) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "query_id": f"q{q}",
                "query": f"query {q}",
                "doc_id": f"d{q}-{d}",
                "text": f"text {q} {d} " + "w " * d,
            }
            for q in range(queries)
            for d in range(per_query)
        ]
    )


def judged_q0(grade: int = 3) -> pl.DataFrame:
    return pl.DataFrame(
        {"query_id": ["q0"] * 4, "doc_id": [f"d0-{d}" for d in range(4)], "grade": [grade] * 4}
    )


def test_repeat_is_served_blind_after_n_judgments_and_recorded_as_repeat() -> None:
    w = Writer()
    s = JudgingSession(
        pool(), "alice", writer=w, judged=judged_q0(), repeats=[("q0", "d0-2")], repeat_every=2
    )
    assert s.query_id == "q1"
    s.grade(1)
    assert s.repeating is None
    step = s.grade(1)  # the second ordinary judgment: now the repeat comes
    assert step.moved_query and s.repeating == ("q0", "d0-2")
    assert s.query_id == "q0" and s.current.doc_id == "d0-2"
    assert s.current_grade is None and set(s.grades_in_query()) == {None}  # first grade hidden
    blind_position = s.pos
    s.grade(0)
    j = w.records[-1]
    assert (j.kind, j.query_id, j.doc_id, j.grade, j.position) == (
        "repeat",
        "q0",
        "d0-2",
        0,
        blind_position,
    )
    assert s.repeating is None and s.query_id == "q1"  # back where the labeller was
    assert s.overall_progress() == (6, 12)  # a repeat is not a new judgment
    s.goto_query("q0")
    while s.current.doc_id != "d0-2":
        s.move(1)
    assert s.current_grade == 3  # the first grade still stands


def test_repeat_never_comes_back_within_its_own_query() -> None:
    s = JudgingSession(
        pool(),
        "alice",
        writer=Writer(),
        judged=judged_q0(),
        repeats=[("q1", "d1-0")],
        repeat_every=1,
    )
    s.grade(2)  # we are in q1: the repeat of a q1 pair must wait
    assert s.repeating is None


def test_moving_away_puts_the_repeat_back() -> None:
    s = JudgingSession(
        pool(),
        "alice",
        writer=Writer(),
        judged=judged_q0(),
        repeats=[("q0", "d0-1")],
        repeat_every=1,
    )
    s.grade(2)
    assert s.repeating == ("q0", "d0-1")
    s.move(1)
    assert s.repeating is None and s.query_id == "q1" and s.pending_repeats == 1
    s.grade(2)
    assert s.repeating == ("q0", "d0-1")


def test_undo_of_a_repeat_serves_it_again() -> None:
    w = Writer()
    s = JudgingSession(
        pool(), "alice", writer=w, judged=judged_q0(), repeats=[("q0", "d0-1")], repeat_every=1
    )
    s.grade(2)
    s.grade(1)  # the repeat
    assert s.repeating is None
    step = s.undo()
    assert w.undos == [("q0", "d0-1")] and step.judgment.kind == "undo"
    assert s.repeating == ("q0", "d0-1") and s.current.doc_id == "d0-1"
    assert s.current_grade is None  # still blind
    s.grade(0)
    assert [j.kind for j in w.records] == ["judge", "repeat", "repeat"]


def test_repeats_through_the_real_store_feed_self_consistency(tmp_path) -> None:
    from goldset_tui.agreement.repeats import self_consistency
    from goldset_tui.app.judging import repeat_candidates
    from goldset_tui.store import Project

    p = pool()
    project = Project.create(
        tmp_path / "store", pool_path=tmp_path / "pool.jsonl", pool_sha256="0" * 64
    )
    with project.writer("alice") as writer:
        s = JudgingSession(p, "alice", writer=writer)
        for _ in range(4):
            s.grade(2)  # q0 done, all grade 2
    judged = project.judgments("alice")
    pairs = repeat_candidates(project, "alice", judged, 0.5, seed=0)
    assert len(pairs) == 2 and all(q == "q0" for q, _ in pairs)
    with project.writer("alice") as writer:
        s = JudgingSession(p, "alice", writer=writer, judged=judged, repeats=pairs, repeat_every=1)
        s.grade(1)  # q1
        assert s.repeating == pairs[0]
        s.grade(0)  # the repeat disagrees with the first grade
    assert project.qrels("alice").filter(pl.col("query_id") == "q0")["grade"].to_list() == [
        2,
        2,
        2,
        2,
    ]
    assert repeat_candidates(project, "alice", project.judgments("alice"), 0.5, seed=0) == [
        pairs[1]
    ]
    report = self_consistency(project.judgments("alice", history=True), project.scale)
    (row,) = report
    assert row["labeller"] == "alice" and row["n"] == 1
    assert row["agreement"] == 0.0 and row["mean_shift"] == -2.0  # 2 then 0
