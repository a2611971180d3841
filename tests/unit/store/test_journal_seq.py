"""A journal line whose ``seq`` repeats an earlier one or goes back (a hand edit) is refused naming
the line, like any other damage. Before, it silently changed a grade: a repeated seq let the
compaction keep the older grade (3 became 2), a negative one sorted a record before the others.
And the writer itself never produces such a line, whatever the labeller does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import goldset_tui.store.writer as writer_module
from goldset_tui.cli import main
from goldset_tui.errors import InputError
from goldset_tui.model import Judgment
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.frames import check_sequence
from goldset_tui.store.journal import replay_numbered
from goldset_tui.store.parts import list_parts


def _project(tmp_path: Path) -> Project:
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1"}\n')
    return Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))


def _record(grade: int, seq: int) -> dict[str, object]:
    return {
        "kind": "judge",
        "labeller": "alice",
        "query_id": "q1",
        "doc_id": "d1",
        "grade": grade,
        "time": "2026-01-01T00:00:00Z",
        "seconds": 1.0,
        "position": 0,
        "note": None,
        "seq": seq,
    }


def _journal(project: Project, *records: dict[str, object]) -> Path:
    with project.writer("alice"):
        pass
    journal, _ = project.labeller_paths("alice")
    journal.write_text("".join(json.dumps(r) + "\n" for r in records))
    return journal


@pytest.mark.parametrize(
    "records",
    [
        # graded 2, then 3; the second line's seq edited from 2 to 1
        (_record(2, 1), _record(3, 1)),
        # graded 1, then 3; the second line's seq edited from 2 to -1
        (_record(1, 1), _record(3, -1)),
        # a journal of one line numbered below 1
        (_record(3, 0),),
        # going back: 1, 3, 2
        (_record(1, 1), _record(2, 3), _record(3, 2)),
    ],
)
def test_a_repeated_or_backward_seq_is_refused_naming_the_line(
    tmp_path: Path, records: tuple[dict[str, object], ...], capsys
) -> None:
    project = _project(tmp_path)
    journal = _journal(project, *records)
    line = len(records)
    with pytest.raises(InputError) as info:
        project.judgments()
    assert (info.value.line, info.value.column) == (line, "seq"), str(info.value)
    # Opening a writer (which compacts the journal into a part) is refused the same way, and
    # leaves the journal as it was for the person repairing it.
    before = journal.read_bytes()
    with pytest.raises(InputError) as info:
        project.writer("alice")
    assert info.value.line == line
    assert journal.read_bytes() == before
    assert list_parts(project.labeller_paths("alice")[1]) == []  # nothing was compacted
    code = main(["qrels", "--store", str(project.path)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and "Traceback" not in err, err
    assert f"{journal}:{line}" in err and "seq" in err, err


def test_increasing_seqs_with_gaps_still_read(tmp_path: Path) -> None:
    # A gap is no contradiction (nothing is reordered): only repeats and steps back are damage.
    project = _project(tmp_path)
    _journal(project, _record(2, 1), _record(3, 5))
    assert project.qrels().rows() == [("q1", "d1", 3)]


def _compacted_then(project: Path | Project, *records: dict[str, object]) -> Path:
    """alice graded q1/d1 2 (seq 1, compacted into a part on close); then the journal holds
    ``records``, as after a crash between writing a part and emptying the journal."""
    assert isinstance(project, Project)
    with project.writer("alice") as writer:
        writer.record(Judgment("alice", "q1", "d1", 2, "2026-01-01T00:00:00Z", seconds=1.0))
    journal, _ = project.labeller_paths("alice")
    assert journal.read_text() == ""
    journal.write_text("".join(json.dumps(r) + "\n" for r in records))
    return journal


def test_a_journal_line_repeating_a_compacted_seq_with_another_grade_is_refused(
    tmp_path: Path,
) -> None:
    # The 3 given seq 1, already compacted: readers took it for the crash's copy of the part's
    # record and dropped it, so the pair read 2 without a word.
    project = _project(tmp_path)
    journal = _compacted_then(project, _record(3, 1) | {"position": None})
    with pytest.raises(InputError) as info:
        project.judgments()
    assert (info.value.line, info.value.column) == (1, "seq"), str(info.value)
    with pytest.raises(InputError) as info:
        project.writer("alice")  # opening would have emptied the journal, the line lost
    assert info.value.line == 1 and journal.read_text() != ""


def test_a_crash_copy_of_a_compacted_record_still_reads(tmp_path: Path) -> None:
    # The honest case: the journal still holds the very record the part holds, then a new one.
    project = _project(tmp_path)
    copy = _record(2, 1) | {"position": None}
    _compacted_then(project, copy, _record(3, 2))
    assert project.qrels().rows() == [("q1", "d1", 3)]
    with project.writer("alice"):
        pass
    assert project.judgments("alice", history=True)["seq"].to_list() == [1, 2]


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("record"), st.integers(0, 3), st.integers(1, 3)),
        st.tuples(st.just("many"), st.integers(0, 3), st.integers(1, 3)),
        st.tuples(st.just("undo"), st.integers(0, 3), st.integers(1, 3)),
        st.tuples(st.just("note"), st.integers(0, 3), st.integers(1, 3)),
        st.tuples(st.just("flag"), st.integers(0, 3), st.integers(1, 3)),
        st.tuples(st.just("reopen"), st.just(0), st.just(0)),
        st.tuples(st.just("compact"), st.just(0), st.just(0)),
    ),
    max_size=25,
)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=OPS)
def test_the_writer_numbers_every_line_in_order(tmp_path_factory, monkeypatch, ops) -> None:
    monkeypatch.setattr(writer_module, "COMPACT_EVERY", 3)  # compactions mid-session too
    project = _project(tmp_path_factory.mktemp("seq"))
    journal, _ = project.labeller_paths("alice")
    writer = project.writer("alice")
    try:
        for op, grade, doc in ops:
            d = f"d{doc}"
            if op == "record":
                writer.record(Judgment("alice", "q1", d, grade, "2026-01-01T00:00:00Z"))
            elif op == "many":
                pair = [Judgment("alice", "q1", f"d{i}", grade, "t") for i in (doc, doc + 3)]
                writer.record_many(pair)
            elif op == "undo":
                writer.undo("q1", d)
            elif op == "note":
                writer.note("q1", d, f"note {grade}")
            elif op == "flag":
                writer.flag("q1", d, "unsure" if grade else "")
            elif op == "reopen":
                writer.close()
                writer = project.writer("alice")
            else:
                writer.compact()
            numbered, _ = replay_numbered(journal)
            check_sequence(numbered, journal)  # every line the writer left: from 1, increasing
    finally:
        writer.close()
    seqs = project.judgments("alice", history=True)["seq"].to_list()
    assert seqs == list(range(1, len(seqs) + 1))
