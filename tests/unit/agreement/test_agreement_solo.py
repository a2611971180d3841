"""`goldset agreement --store` with one labeller: self-consistency from blind repeats, not a refusal."""

from __future__ import annotations

import json

import pytest
from sklearn.metrics import cohen_kappa_score

from goldset_tui.cli import main
from goldset_tui.model import Judgment
from goldset_tui.store import Project, sha256_file

FIRST = {"d1": 3, "d2": 0, "d3": 2, "d4": 1, "d5": 0, "d6": 2}
AGAIN = {"d1": 3, "d2": 1, "d3": 2, "d5": 0}  # four pairs came back, blind


def solo_store(tmp_path, repeats: dict[str, int]):
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1"}\n')
    project = Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))
    with project.writer("rae") as w:
        for i, (doc, grade) in enumerate(FIRST.items()):
            w.record(Judgment("rae", "q1", doc, grade, f"2026-01-05T09:0{i}:00Z"))
        for i, (doc, grade) in enumerate(repeats.items()):
            w.record(Judgment("rae", "q1", doc, grade, f"2026-01-05T17:0{i}:00Z", kind="repeat"))
    return project.path


def test_one_labeller_with_repeats_gets_self_consistency(tmp_path, capsys) -> None:
    store = solo_store(tmp_path, AGAIN)
    assert main(["agreement", "--store", str(store), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (
        report["labellers"] == ["rae"]
        and report["pairs"] == []
        and report["alpha"]["ordinal"] is None
    )
    (rae,) = report["self_consistency"]
    first, second = [FIRST[d] for d in AGAIN], list(AGAIN.values())
    assert rae["n"] == 4 and rae["agreement"] == pytest.approx(3 / 4)
    assert rae["kappa_quadratic"] == pytest.approx(
        cohen_kappa_score(first, second, labels=[0, 1, 2, 3], weights="quadratic")
    )
    assert rae["mean_shift"] == pytest.approx(1 / 4)  # d2: 0 then 1
    assert main(["agreement", "--store", str(store)]) == 0
    md = capsys.readouterr().out
    assert "Self-consistency of one labeller" in md and "| rae | 4 | 0.750 |" in md


def test_one_labeller_without_repeats_is_told_how_to_get_them(tmp_path, capsys) -> None:
    store = solo_store(tmp_path, {})
    assert main(["agreement", "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "at least two labellers" in err and "--repeat" in err


def test_one_labeller_screen_is_refused_in_one_line(tmp_path, capsys) -> None:
    store = solo_store(tmp_path, AGAIN)
    assert main(["agreement", "--store", str(store), "--screen"]) == 2
    assert "needs two labellers" in capsys.readouterr().err
