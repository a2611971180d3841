"""A store graded 1-5: trec_eval's relevance line (grade >= 1) makes every judged document
relevant. `goldset eval` and `goldset qrels` say so in one warning line; the numbers are
trec_eval's, unchanged (docs/eval.md, "Scales that do not start at 0"). `goldset validate --run`
refuses a relevance line with no grade of the scale below it (its "what if" would move a label to
0, off the scale) and asks for a line inside the scale."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui.cli import main
from goldset_tui.model import GradeScale, Judgment
from goldset_tui.store import Project

RUN = "q1 Q0 poor 1 2.0 r\nq1 Q0 good 2 1.0 r\n"


def make_store(tmp_path: Path, lo: int, hi: int) -> Path:
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1", "doc_id": "poor", "text": "x"}\n')
    store = tmp_path / f"store{lo}{hi}"
    project = Project.create(
        store, pool_path=pool, pool_sha256="0" * 64, scale=GradeScale.from_range(lo, hi)
    )
    with project.writer("ann") as writer:
        writer.record(Judgment("ann", "q1", "poor", lo, "2026-11-30T10:00:00.000Z"))
        writer.record(Judgment("ann", "q1", "good", hi, "2026-11-30T10:00:01.000Z"))
    return store


def eval_p1(capsys, store: Path, tmp_path: Path, *extra: str) -> tuple[float, str]:
    run = tmp_path / "r.run"
    run.write_text(RUN)
    assert main(["eval", str(store), str(run), "-m", "P@1", *extra]) == 0
    cap = capsys.readouterr()
    value = float(cap.out.split()[-1])
    return value, cap.err


def test_eval_on_a_1_to_5_store_warns_and_the_advice_fixes_it(tmp_path, capsys):
    store = make_store(tmp_path, 1, 5)
    # The run's first document has grade 1 ("not relevant" on this scale); at trec_eval's line
    # it counts as relevant: P@1 = 1/1. At grade >= 2, P@1 = 0/1.
    value, err = eval_p1(capsys, store, tmp_path)
    assert value == pytest.approx(1.0)
    (warning,) = [line for line in err.splitlines() if "warning" in line]
    assert "grades run 1-5" in warning and "-l 2" in warning
    value, err = eval_p1(capsys, store, tmp_path, "-l", "2")
    assert value == pytest.approx(0.0) and "warning" not in err


def test_eval_on_a_0_to_3_store_says_nothing(tmp_path, capsys):
    value, err = eval_p1(capsys, make_store(tmp_path, 0, 3), tmp_path)
    assert value == pytest.approx(0.0) and "warning" not in err


def test_qrels_export_of_a_1_to_5_store_warns(tmp_path, capsys):
    store = make_store(tmp_path, 1, 5)
    out = tmp_path / "q.txt"
    assert main(["qrels", "--store", str(store), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "grades run 1-5" in err and "-l 2" in err
    assert out.read_text().split("\n")[0].split()[-1] in {"1", "5"}  # grades exported as they are
    assert main(["qrels", "--store", str(make_store(tmp_path, 0, 3))]) == 0
    assert "grades run" not in capsys.readouterr().err


def test_validate_with_runs_on_a_1_to_5_store_refuses_a_line_off_the_scale(tmp_path, capsys):
    pool = tmp_path / "pool.jsonl"
    pool.write_text(
        '{"query_id": "q1", "query": "q", "doc_id": "poor", "text": "x"}\n'
        '{"query_id": "q1", "query": "q", "doc_id": "good", "text": "y"}\n'
    )
    store = tmp_path / "mj"
    Project.create(store, pool_path=pool, pool_sha256="0" * 64, scale=GradeScale.from_range(1, 5))
    labels = tmp_path / "llm.jsonl"
    labels.write_text(
        '{"query_id": "q1", "doc_id": "poor", "grade": 1, "confidence": 0.9}\n'
        '{"query_id": "q1", "doc_id": "good", "grade": 4, "confidence": 0.8}\n'
    )
    assert (
        main(["import", "--store", str(store), "--labeller", "llm", "--machine", str(labels)]) == 0
    )
    runs = []
    for name, text in {"a": RUN, "b": "q1 Q0 good 1 2.0 b\nq1 Q0 poor 2 1.0 b\n"}.items():
        (tmp_path / name).write_text(text)
        runs += ["--run", f"{name}={tmp_path / name}"]
    capsys.readouterr()
    args = ["validate", "--store", str(store), "--labeller", "llm", "--budget", "2"]
    assert main([*args, "-o", str(tmp_path / "check.jsonl"), *runs, "-m", "P@1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "grades run 1-5" in err and "Traceback" not in err
    assert not (tmp_path / "check.jsonl").exists()
    assert main([*args, "-o", str(tmp_path / "check.jsonl"), *runs, "-m", "P(rel=2)@1"]) == 0
    assert "grades run" not in capsys.readouterr().err
    assert main([*args, "-o", str(tmp_path / "check2.jsonl")]) == 0  # no runs: no relevance line
    assert "grades run" not in capsys.readouterr().err
