"""`goldset import --human FILE --on-conflict replace` after FILE was imported once and some of
its pairs re-graded since (on the screen, or by a corrected spreadsheet): the option says the
file's grades stand, but the import stopped at "already imported: nothing written" (exit 0),
leaving the later grades and no way to bring the file's back short of editing the file. Now
replace applies the file again; without it (or with nothing to replace) the same file still
writes nothing."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from import_support import POOL, pool_store, snapshot
from test_human_import import run_import, screen_grade, write

from goldset_tui.store import Project
from goldset_tui.store.human import import_human, imported_judgments


def test_replace_brings_the_files_grades_back(tmp_path: Path, capsys) -> None:
    project = pool_store(tmp_path)
    first = write(tmp_path / "a.csv", "query_id,doc_id,grade\nq1,d1,2\nq1,d2,3\n")
    fixed = write(tmp_path / "b.csv", "query_id,doc_id,grade\nq1,d1,0\nq1,d2,2\n")
    assert run_import(project, first) == 0
    assert run_import(project, fixed, "--on-conflict", "replace") == 0
    capsys.readouterr()
    assert run_import(project, first, "--on-conflict", "replace") == 0
    err = capsys.readouterr().err
    assert "nothing written" not in err and "2 replaced" in err, err
    after = Project.open(project.path)
    assert after.qrels("alice").rows() == [("q1", "d1", 2), ("q1", "d2", 3)]
    history = after.judgments("alice", history=True).filter(pl.col("doc_id") == "d1")
    assert history["grade"].to_list() == [2, 0, 2]  # every grade kept in the history
    assert imported_judgments(after, "alice").height == 6  # each linked to its file


def test_replace_over_a_screen_regrade_of_an_imported_pair(tmp_path: Path) -> None:
    project = pool_store(tmp_path)
    path = write(tmp_path / "a.qrels", "q1 0 d1 2\nq2 0 d1 1\n")
    import_human(project, "alice", path, pool_pairs=POOL)
    screen_grade(Project.open(project.path), "q1", "d1", 0)
    result = import_human(
        Project.open(project.path), "alice", path, pool_pairs=POOL, on_conflict="replace"
    )
    assert not result.already and (result.written, result.replaced, result.unchanged) == (1, 1, 1)
    assert Project.open(project.path).qrels("alice").rows() == [("q1", "d1", 2), ("q2", "d1", 1)]


def test_replace_with_nothing_to_replace_still_writes_nothing(tmp_path: Path, capsys) -> None:
    project = pool_store(tmp_path)
    path = write(tmp_path / "a.qrels", "q1 0 d1 2\nq2 0 d1 0\n")
    assert run_import(project, path) == 0
    before = snapshot(project.path)
    assert run_import(project, path, "--on-conflict", "replace") == 0
    assert "already imported for alice: nothing written" in capsys.readouterr().err
    assert snapshot(project.path) == before
