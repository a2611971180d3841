"""The answers of an interrupted `judge --machine` run, said when the store opens
(store/answers.py): counted against the labels, never for a run still going, and never a reason
for the store not to open."""

from __future__ import annotations

import json
from pathlib import Path

from goldset_tui.store import Project, sha256_file
from goldset_tui.store.answers import AnswerLog, cache_path, mark_run


def _store(tmp_path: Path) -> Project:
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1", "doc_id": "d1"}\n', encoding="utf-8")
    return Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))


def _answer(query_id: str, doc_id: str, text: str) -> dict[str, str]:
    return {"query_id": query_id, "doc_id": doc_id, "input_sha256": "x", "text": text}


def test_graded_answers_are_counted_refusals_are_not(tmp_path: Path) -> None:
    project = _store(tmp_path)
    log = cache_path(project.path, "p" * 64, "m")
    with AnswerLog(log) as answers:
        answers.add(_answer("q1", "d1", "Final score: 2"))
        answers.add(_answer("q1", "d2", "I cannot tell."))
        answers.add(_answer("q1", "d3", "Final score: 0"))
    mark_run(project.path, "llm", log, "goldset judge --machine m pool.jsonl")
    opened = Project.open(project.path)
    assert list(opened.unstored) == ["llm"]
    assert opened.unstored["llm"].startswith("2 answers of an interrupted")
    assert opened.unstored["llm"].endswith(": goldset judge --machine m pool.jsonl")
    assert opened.warnings == [opened.unstored["llm"]]


def test_a_live_run_is_not_said_to_be_interrupted(tmp_path: Path) -> None:
    project = _store(tmp_path)
    log = cache_path(project.path, "p" * 64, "m")
    with AnswerLog(log) as answers:  # holds the log's lock, as a running judge does
        answers.add(_answer("q1", "d1", "Final score: 2"))
        mark_run(project.path, "llm", log, "goldset judge")
        assert Project.open(project.path).unstored == {}
    assert list(Project.open(project.path).unstored) == ["llm"]


def test_a_log_that_cannot_be_read_does_not_stop_the_store_opening(tmp_path: Path) -> None:
    project = _store(tmp_path)
    log = cache_path(project.path, "p" * 64, "m")
    log.parent.mkdir(parents=True)
    good = json.dumps(_answer("q1", "d1", "Final score: 2"))
    log.write_text(f"{good}\nnot json\n{good}\n", encoding="utf-8")  # a corrupt line mid-file
    mark_run(project.path, "llm", log, "goldset judge")
    assert Project.open(project.path).unstored == {}
