"""Flags and skips in the store: records in the labeller's journal (the reason in the note column),
never read as notes; exported with the judgments (CSV/Parquet gain note and flag, TREC stays four
columns); flagged pairs go to adjudication, where a decision becomes the consensus grade."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.adjudication.consensus import UMA, consensus_qrels, flagged_pairs
from goldset_tui.adjudication.decisions import AdjudicationWriter
from goldset_tui.agreement.example import build_example_store
from goldset_tui.cli import main
from goldset_tui.errors import InputError
from goldset_tui.judging import JudgingSession
from goldset_tui.model import Judgment
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.annotations import notes_of as latest_notes
from goldset_tui.store.annotations import reasons_of as latest_reasons


def new_store(tmp_path: Path) -> Project:
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1"}\n')
    return Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))


def grade(labeller: str, doc: str, g: int) -> Judgment:
    return Judgment(labeller, "q1", doc, g, "2026-01-01T00:00:00Z", seconds=3.0, position=0)


def test_flag_and_skip_are_journal_records_whose_reason_is_not_a_note(tmp_path: Path) -> None:
    project = new_store(tmp_path)
    with project.writer("ana") as w:
        w.record(grade("ana", "d1", 2))
        w.note("q1", "d1", "the table is cut off")
        w.flag("q1", "d1", "unsure")
        w.record(grade("ana", "d2", 1))
        w.flag("q1", "d2", "unsure")
        w.flag("q1", "d2", "")  # unflagged
        w.skip("q1", "d3", "page did not load")
        with pytest.raises(InputError):
            w.skip("q1", "d4", "  ")  # a skip without a reason records nothing
        # Durable like a note: in the journal before compaction.
        kinds = [json.loads(line)["kind"] for line in w.journal_path.read_text().splitlines()]
        assert kinds == ["judge", "note", "flag", "judge", "flag", "flag", "skip"]
    project = Project.open(project.path)
    current = project.judgments("ana")
    # The flag came after the note: the note stays the pair's note.
    assert dict(current.select("doc_id", "note").rows()) == {
        "d1": "the table is cut off",
        "d2": None,
    }
    history = project.judgments("ana", history=True)
    assert latest_reasons(history, "flag") == {("q1", "d1"): "unsure"}
    assert latest_reasons(history, "skip") == {("q1", "d3"): "page did not load"}
    assert latest_notes(project, "ana") == {("q1", "d1"): "the table is cut off"}


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().out


def test_qrels_tables_carry_notes_and_flags_trec_stays_four_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = new_store(tmp_path)
    with project.writer("ana") as w:
        w.record(grade("ana", "d1", 2))
        w.note("q1", "d1", "cut off, see, the table")
        w.record(grade("ana", "d2", 0))
        w.flag("q1", "d2", "unsure")
        w.record(grade("ana", "d3", 1))
    code, out = run(capsys, "qrels", "--store", project.path, "--format", "csv")
    assert code == 0
    table = pl.read_csv(out.encode())
    assert table.columns == ["query_id", "doc_id", "grade", "note", "flag"]
    assert table.select("doc_id", "note", "flag").rows() == [
        ("d1", "cut off, see, the table", None),
        ("d2", None, "unsure"),
        ("d3", None, None),
    ]
    parquet = tmp_path / "out.parquet"
    assert run(capsys, "qrels", "--store", project.path, "-o", parquet)[0] == 0
    assert pl.read_parquet(parquet).equals(table)
    code, out = run(capsys, "qrels", "--store", project.path)
    assert {len(line.split()) for line in out.splitlines()} == {4}


def test_a_flagged_pair_goes_to_adjudication_and_its_decision_is_the_consensus(
    tmp_path: Path,
) -> None:
    store = build_example_store(tmp_path / "demo")
    project = Project.open(store)
    # A pair all three agree on: the rule settles it, nobody would have looked at it again.
    consensus = {(q, d): g for q, d, g in consensus_qrels(project).iter_rows()}
    ratings = project.judgments().group_by("query_id", "doc_id").agg(pl.col("grade").n_unique())
    q, d = next((q, d) for q, d, n in ratings.rows() if n == 1)
    before = consensus[(q, d)]
    with project.writer("bob") as w:
        w.flag(q, d, "is a stale page relevant?")
    flagged = flagged_pairs(Project.open(store))
    assert flagged.rows() == [(q, d, "bob: is a stale page relevant?")]
    with AdjudicationWriter(store, "dee", UMA) as adjudicator:
        adjudicator.decide(q, d, 0 if before else 1)
    after = {(a, b): g for a, b, g in consensus_qrels(Project.open(store)).iter_rows()}
    assert after[(q, d)] == (0 if before else 1)
    assert {k: v for k, v in after.items() if k != (q, d)} == {
        k: v for k, v in consensus.items() if k != (q, d)
    }


def test_a_skipped_candidate_is_not_served_again_after_reopening(tmp_path: Path) -> None:
    pool = pl.DataFrame(
        {
            "query_id": ["q1"] * 3,
            "query": ["rotate"] * 3,
            "doc_id": ["a", "b", "c"],
            "text": ["x"] * 3,
        }
    )
    project = new_store(tmp_path)
    with project.writer("ana") as w:
        s = JudgingSession(pool, "ana", writer=w, scale=project.scale)
        skipped = s.current.doc_id
        s.skip("cannot tell")
        assert s.current.doc_id != skipped and s.current_skip is None
        s.grade(1)
        s.grade(2)  # the last unjudged one: grading does not go back to the skipped one
        assert s.current.doc_id != skipped
    history = Project.open(project.path).judgments("ana", history=True)
    again = JudgingSession(
        pool,
        "ana",
        judged=Project.open(project.path).judgments("ana"),
        skips=latest_reasons(history, "skip"),
    )
    assert again.first_unjudged_in(0) is None  # nothing left to serve: b and c graded, a skipped
    at = [again._view(0).rows[i]["doc_id"] for i in range(3)].index(skipped)
    again.move(at - again.pos)
    assert again.current_skip == "cannot tell"  # shown when the labeller goes back to it


def test_a_flagged_pair_nobody_graded_takes_the_adjudicators_grade(tmp_path: Path) -> None:
    store = build_example_store(tmp_path / "demo")
    with Project.open(store).writer("cy") as w:
        w.flag("q9", "nobody/graded", "cannot tell, please look")
        w.skip("q9", "nobody/graded", "cannot tell")
    assert ("q9", "nobody/graded") not in {
        (q, d) for q, d, _ in consensus_qrels(Project.open(store)).iter_rows()
    }
    with AdjudicationWriter(store, "dee", UMA) as adjudicator:
        adjudicator.decide("q9", "nobody/graded", 2)
    decided = {(q, d): g for q, d, g in consensus_qrels(Project.open(store)).iter_rows()}
    assert decided[("q9", "nobody/graded")] == 2
