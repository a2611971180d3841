"""`goldset report --qrels STORE` on a store whose lowest grade means not relevant (--scale 1-5)
counted grade 1 as relevant without a word: a run whose first document was graded "not relevant"
scored Success@1 = 1. `goldset eval` warns there; the report now warns too, and says how to set
the level (the metric's own rel=, which the report already reads)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goldset_tui.cli import main


def setup(tmp_path: Path, scale: str) -> list[str]:
    pool = tmp_path / "pool.jsonl"
    pairs = [("q1", "d1"), ("q1", "d2")]
    pool.write_text(
        "".join(
            json.dumps({"query_id": q, "query": q, "doc_id": d, "text": d}) + "\n" for q, d in pairs
        )
    )
    low = int(scale[0])
    (tmp_path / "old.qrels").write_text(f"q1 0 d1 {low}\nq1 0 d2 {low + 3}\n")
    store = tmp_path / "store"
    argv = ["import", "--pool", str(pool), "--store", str(store), "--scale", scale]
    assert main([*argv, "--labeller", "ana", "--human", str(tmp_path / "old.qrels")]) == 0
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 9 a\nq1 Q0 d2 2 8 a\n")
    (tmp_path / "strata.csv").write_text("query_id,stratum\nq1,s\n")
    return ["report", "--qrels", str(store), "--run", f"a={tmp_path / 'a.run'}"] + [
        "--strata",
        str(tmp_path / "strata.csv"),
        "--format",
        "json",
    ]


def test_a_1_to_5_store_warns_and_names_the_fix(tmp_path: Path, capsys) -> None:
    argv = setup(tmp_path, "1-5")
    capsys.readouterr()
    assert main([*argv, "--measure", "Success@1"]) == 0
    captured = capsys.readouterr()
    assert "every judged document counts as relevant" in captured.err, captured.err
    assert "--measure 'Success(rel=2)@1'" in captured.err, captured.err
    # By hand: the first document d1 is graded 1, counted relevant at trec_eval's level 1 ...
    assert json.loads(captured.out)["strata"][0]["systems"]["a"]["hits"] == 1
    assert main([*argv, "--measure", "Success(rel=2)@1"]) == 0
    captured = capsys.readouterr()
    assert "every judged document" not in captured.err
    # ... and not at the level the warning names.
    assert json.loads(captured.out)["strata"][0]["systems"]["a"]["hits"] == 0


@pytest.mark.parametrize("metric", ["Success@1", "nDCG@10"])
def test_a_0_to_3_store_does_not(tmp_path: Path, capsys, metric: str) -> None:
    argv = setup(tmp_path, "0-3")
    capsys.readouterr()
    assert main([*argv, "--measure", metric]) == 0
    assert "every judged document" not in capsys.readouterr().err
