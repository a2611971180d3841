"""`goldset compare` on grades where the lowest means not relevant (a store made with --scale 1-5,
or qrels that grade 1-5): grade 1 counted as relevant, so a run putting a "not relevant"
document first scored Success@1 = 1, with no warning; `goldset eval` warns and takes -l.
compare now gives the same warning and takes -l/--rel-level N (grade >= N relevant, the mean over
the queries with such a grade), so its means equal `goldset eval -l N`'s."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goldset_tui.cli import main

# q1: d1 is graded 1 (not relevant on 1-5), d2 graded 4. q2: only grade 1 (no relevant at -l 2).
QRELS = "q1 0 d1 1\nq1 0 d2 4\nq2 0 d3 1\nq3 0 d4 5\n"
RUN_A = "q1 Q0 d1 1 9 a\nq1 Q0 d2 2 8 a\nq2 Q0 d3 1 9 a\nq3 Q0 d4 1 9 a\n"
RUN_B = "q1 Q0 d2 1 9 b\nq1 Q0 d1 2 8 b\nq2 Q0 d3 1 9 b\nq3 Q0 x 1 9 b\nq3 Q0 d4 2 8 b\n"


def files(tmp_path: Path) -> list[str]:
    for name, text in {"q.qrels": QRELS, "a.run": RUN_A, "b.run": RUN_B}.items():
        (tmp_path / name).write_text(text)
    return [str(tmp_path / n) for n in ("q.qrels", "a.run", "b.run")]


def compare_json(capsys: pytest.CaptureFixture, *argv: str) -> dict:
    capsys.readouterr()
    assert main(["compare", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_rel_level_2_leaves_grade_1_out(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    qrels, a, b = files(tmp_path)
    doc = compare_json(capsys, qrels, a, b, "-m", "Success@1", "-l", "2")
    # By hand, grade >= 2 relevant: queries q1 and q3 (q2 has none). Success@1:
    # a: q1 d1 first (grade 1: no) 0, q3 d4 first 1 -> 0.5; b: q1 d2 first 1, q3 x first 0 -> 0.5
    assert doc["queries"] == 2
    assert (doc["mean_a"], doc["mean_b"]) == (0.5, 0.5)
    assert (doc["wins"], doc["losses"], doc["ties"]) == (1, 1, 0)
    # Without -l, trec_eval's convention: a's "not relevant" first document counts.
    plain = compare_json(capsys, qrels, a, b, "-m", "Success@1")
    assert (plain["queries"], plain["mean_a"]) == (3, 1.0)


def test_means_equal_eval_at_the_same_level(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    qrels, a, b = files(tmp_path)
    for measure in ("nDCG@10", "RR", "P@2", "AP"):
        doc = compare_json(capsys, qrels, a, b, "-m", measure, "-l", "2")
        assert (
            main(["eval", qrels, f"a={a}", f"b={b}", "-m", measure, "-l", "2", "--format", "json"])
            == 0
        )
        means = _means(json.loads(capsys.readouterr().out))
        assert means["a"] == pytest.approx(doc["mean_a"]) and means["b"] == pytest.approx(
            doc["mean_b"]
        )


def _means(doc: dict) -> dict[str, float]:
    """The mean of each run in `goldset eval --format json` (one measure)."""
    found: dict[str, float] = {}
    for run, body in doc["runs"].items():
        (value,) = body["mean"].values()
        found[run] = value
    return found


def test_a_store_on_1_to_5_warns(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    qrels, a, b = files(tmp_path)
    pool = tmp_path / "pool.jsonl"
    pairs = [("q1", "d1"), ("q1", "d2"), ("q2", "d3"), ("q3", "d4")]
    pool.write_text(
        "".join(
            json.dumps({"query_id": q, "query": q, "doc_id": d, "text": d}) + "\n" for q, d in pairs
        )
    )
    store = tmp_path / "store"
    argv = ["import", "--pool", str(pool), "--store", str(store), "--scale", "1-5"]
    assert main([*argv, "--labeller", "ana", "--human", qrels]) == 0
    capsys.readouterr()
    assert main(["compare", str(store), a, b, "-m", "Success@1"]) == 0
    err = capsys.readouterr().err
    assert "warning" in err and "-l 2" in err, err
    assert main(["compare", str(store), a, b, "-m", "Success@1", "-l", "2"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_rel_level_below_1_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    qrels, a, b = files(tmp_path)
    assert main(["compare", qrels, a, b, "-l", "0"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
