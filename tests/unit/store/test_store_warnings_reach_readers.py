"""What a store says when it opens (a torn journal line dropped, answers of an interrupted
machine judge not in its labels yet) reaches whoever reads its grades for a number: `goldset
report --qrels STORE` lists it among the report's warnings, `goldset eval` / `compare` with a
store as qrels print it on stderr. Before, only `qrels`, `agreement`, `adjudicate` and the
screens said it, so a report could be computed on labels missing answers nobody was told of."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui.app.qrels import load_qrels, report_qrels
from goldset_tui.model import Judgment
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.answers import AnswerLog, cache_path, mark_run


def _store_with_an_interrupted_run(tmp_path: Path) -> Path:
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1", "doc_id": "d1"}\n', encoding="utf-8")
    project = Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))
    with project.writer("ana") as writer:
        writer.record(Judgment("ana", "q1", "d1", 2, "2026-01-01T00:00:00Z"))
    log = cache_path(project.path, "p" * 64, "m")
    with AnswerLog(log) as answers:
        answers.add(
            {"query_id": "q1", "doc_id": "d2", "input_sha256": "x", "text": "Final score: 3"}
        )
    mark_run(project.path, "llm", log, "goldset judge --machine m pool.jsonl")
    return project.path


def test_the_report_lists_what_the_store_said(tmp_path: Path) -> None:
    store = _store_with_an_interrupted_run(tmp_path)
    said: list[str] = []
    qrels = report_qrels(str(store), "ana", said.append)
    assert qrels.height == 1
    assert len(said) == 1
    assert said[0].startswith("1 answer of an interrupted `goldset judge")


def test_eval_with_a_store_as_qrels_says_it_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = _store_with_an_interrupted_run(tmp_path)
    qrels = load_qrels(str(store), "ana")
    assert qrels.height == 1
    err = capsys.readouterr().err
    assert "1 answer of an interrupted `goldset judge" in err
