"""Undo across sessions and groups, without a terminal: the undo stack rebuilt from the store's
history (so ``u`` after a reconnect takes back the last grade, not "Nothing to undo"), one undo for
a whole near-duplicate group (one journal write: ``undo_many``), and a re-grade that stays put."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from goldset_tui.judging import JudgingSession
from goldset_tui.judging.history import undo_stack
from goldset_tui.judging.state import UndoEntry
from goldset_tui.model import Judgment
from goldset_tui.store import Project, sha256_file

SAME = "Rotate an API key: create a second key, deploy it, then revoke the first one for good."


def events(*rows: tuple) -> pl.DataFrame:
    """(query_id, doc_id, grade, time, seconds, kind) in seq order."""
    return pl.DataFrame(
        rows,
        schema={
            "query_id": pl.String,
            "doc_id": pl.String,
            "grade": pl.Int64,
            "time": pl.String,
            "seconds": pl.Float64,
            "kind": pl.String,
        },
        orient="row",
    )


def test_the_stack_follows_the_stores_rules() -> None:
    history = events(
        ("q", "imp", 1, "t0", None, "judge"),  # imported: never on the stack
        ("q", "a", 2, "t1", 4.2, "judge"),
        ("q", "a", 3, "t2", 1.0, "judge"),  # a re-grade: before is 2
        ("q", "b", 1, "t3", 2.0, "judge"),
        ("q", "b", None, "t4", None, "undo"),  # cancels b's grade: off the stack
        ("q", "g1", 2, "t5", 0.0, "judge"),  # one d: same time, grade, no seconds
        ("q", "g2", 2, "t5", 0.0, "judge"),
        ("q", "g3", 1, "t6", 0.0, "judge"),  # another d
        ("q", "a", None, "t7", None, "note"),
        ("r", "x", 0, "t8", 3.0, "repeat"),
        ("q", "imp", None, "t9", None, "undo"),  # undoes the import, which was not on the stack
    )
    stack, groups = undo_stack(history)
    assert stack == [
        UndoEntry("q", "a", None, "judge"),
        UndoEntry("q", "a", 2, "judge"),
        UndoEntry("q", "g1", None, "judge", 1),
        UndoEntry("q", "g2", None, "judge", 1),
        UndoEntry("q", "g3", None, "judge", 2),
        UndoEntry("r", "x", None, "repeat"),
    ]
    assert groups == 2


def test_an_undo_cancels_the_pairs_latest_grade_even_below_the_top() -> None:
    history = events(
        ("q", "a", 1, "t1", 1.0, "judge"),
        ("q", "b", 2, "t2", 1.0, "judge"),
        ("q", "a", None, "t3", None, "undo"),  # a store edited elsewhere: a, not b
    )
    assert undo_stack(history)[0] == [UndoEntry("q", "b", None, "judge")]


def store_with(tmp_path: Path, rows: list[dict]) -> Project:
    pool = tmp_path / "pool.jsonl"
    pl.DataFrame(rows).write_ndjson(pool)
    return Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))


def pool_rows(alike: int) -> list[dict]:
    rows = [
        {"query_id": "q1", "query": "rotate", "doc_id": f"same{i:04d}", "text": SAME}
        for i in range(alike)
    ]
    rows += [
        {"query_id": q, "query": "rotate", "doc_id": f"{q}-lone{i}", "text": f"Lone {q} {i} " * 9}
        for q in ("q1", "q2")
        for i in range(3)
    ]
    return rows


def session(project: Project, rows: list[dict]) -> JudgingSession:
    return JudgingSession(
        pl.DataFrame(rows),
        "ana",
        writer=project.writer("ana"),
        judged=project.judgments("ana") if "ana" in project.labellers() else None,
        history=project.judgments("ana", history=True) if "ana" in project.labellers() else None,
    )


def land_on(s: JudgingSession, prefix: str) -> None:
    for qi in range(len(s.query_ids)):
        rows = s._view(qi).rows
        for pos, row in enumerate(rows):
            if row["doc_id"].startswith(prefix) and s.grade_at(pos, qi) is None:
                s._land(qi, pos)
                return
    raise AssertionError(prefix)


def test_undo_picks_up_the_session_before_and_takes_a_group_back_at_once(tmp_path: Path) -> None:
    rows = pool_rows(1201)  # two batches of d (GROUP_BATCH): still one group
    project = store_with(tmp_path, rows)
    s = session(project, rows)
    land_on(s, "same")
    source = s.pos
    s.grade(2)
    assert len(s.grade_group(source)) == 1200
    land_on(s, "q2-lone")
    s.grade(1)
    s.close()  # the session ends (an SSH drop): the stack lived only in its memory

    s = session(project, rows)
    assert s.judged_count == 1202
    step = s.undo()
    assert step is not None and step.undone == 1 and step.judgment.doc_id.startswith("q2-lone")
    assert (s.query_id, s.current.doc_id) == ("q2", step.judgment.doc_id)  # back on it
    step = s.undo()
    assert step is not None and step.undone == 1200 and s.judged_count == 1
    step = s.undo()
    assert step is not None and step.undone == 1 and s.judged_count == 0
    assert s.undo() is None
    s.close()
    project = Project.open(tmp_path / "store")
    assert project.qrels("ana").height == 0


def test_undo_many_writes_what_undo_one_by_one_writes(tmp_path: Path) -> None:
    # The reference is the one-pair undo(): the same pairs undone both ways give the same
    # answers and leave the same grades in force, compacted records and journal records alike.
    answers = []
    for name, many in (("one", False), ("many", True)):
        folder = tmp_path / name
        folder.mkdir()
        project = store_with(folder, pool_rows(5))
        w = project.writer("ana")

        def grade(doc: str, g: int, w=w) -> None:
            w.record(Judgment("ana", "q1", doc, g, "2026-01-01T00:00:00", seconds=1.0))

        grade("same0000", 1)
        grade("same0001", 2)
        w.compact()  # some records in a part, some in the journal
        grade("same0001", 3)
        grade("same0002", 0)
        pairs = [("q1", "same0001"), ("q1", "same0002"), ("q1", "same0001"), ("q1", "same0004")]
        got = w.undo_many(pairs) if many else [w.undo(q, d) for q, d in pairs]
        w.close()
        qrels = Project.open(folder / "store").qrels("ana")
        answers.append((got, sorted(qrels.select("doc_id", "grade").rows())))
    assert answers[0] == answers[1]
    assert answers[1] == ([2, None, None, None], [("same0000", 1)])


def test_a_re_grade_stays_on_the_candidate() -> None:
    rows = pool_rows(0)
    s = JudgingSession(pl.DataFrame(rows), "ana")
    first = s.current.doc_id
    s.grade(1)
    s.grade(2)
    s.grade(0)  # q1 done: on to q2
    assert s.query_id == "q2"
    s.next_query(-1)
    s._land(0, 0)
    assert s.current.doc_id == first
    step = s.grade(3)
    assert step.before == 1 and not step.moved_query
    assert (s.query_id, s.pos) == ("q1", 0) and s.current_grade == 3
    s.undo()
    assert s.current_grade == 1  # the earlier grade is back
