"""End to end on the sample data: alice's and bob's qrels imported as people count everywhere a
person's judgments count: `goldset qrels` (their own and --consensus), `goldset agreement`, and
`goldset report --qrels STORE`. (The judging screen resuming after them: tests/ui.)"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score

from goldset_tui.cli import main
from goldset_tui.store import Project, sha256_file

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"
ALICE = SAMPLE / "judgments" / "alice.qrels"
BOB = SAMPLE / "judgments" / "bob.qrels"


def read(path: Path) -> dict[tuple[str, str], int]:
    rows = (line.split() for line in path.read_text().splitlines() if line.strip())
    return {(q, d): int(g) for q, _, d, g in rows}


@pytest.fixture
def store(tmp_path: Path) -> Path:
    pool = SAMPLE / "pool.jsonl"
    Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))
    for name, path in (("alice", ALICE), ("bob", BOB)):
        argv = ["import", "--store", str(tmp_path / "store"), "--labeller", name]
        assert main([*argv, "--human", str(path)]) == 0
    return tmp_path / "store"


def test_the_import_says_what_is_left_to_judge(tmp_path: Path, capsys) -> None:
    pool = SAMPLE / "pool.jsonl"
    store = tmp_path / "my store"  # a space: the command printed must still paste
    Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    assert main(["import", "--store", str(store), "--labeller", "bob", "--human", str(BOB)]) == 0
    err = capsys.readouterr().err
    pooled = sum(1 for line in pool.read_text().splitlines() if line.strip())
    left = pooled - len(read(BOB))  # bob graded only pooled pairs, each once
    assert f"{left:,} of the pool's {pooled:,} pairs are left for bob" in err
    command = shlex.split(err[err.index("goldset judge") :])
    assert command == ["goldset", "judge", str(pool), "--store", str(store), "--labeller", "bob"]
    assert (
        main(["import", "--store", str(store), "--labeller", "alice", "--human", str(ALICE)]) == 0
    )
    assert "left for" not in capsys.readouterr().err  # alice graded the whole pool


def test_each_persons_qrels_come_back_exactly(store: Path, tmp_path: Path) -> None:
    for name, path in (("alice", ALICE), ("bob", BOB)):
        out = tmp_path / f"{name}.qrels"
        assert main(["qrels", "--store", str(store), "--labeller", name, "-o", str(out)]) == 0
        assert read(out) == read(path)


def test_consensus_counts_imported_people(store: Path, tmp_path: Path) -> None:
    # The store's rule (unanimous, then majority, then an adjudicator) on two people, by hand: a
    # pair one of them graded keeps that grade, a pair they agree on keeps it, a pair they
    # disagree on waits for an adjudicator (left out of the export).
    alice, bob = read(ALICE), read(BOB)
    expected = {
        pair: grade
        for pair, grade in {**bob, **alice}.items()
        if pair not in alice or pair not in bob or alice[pair] == bob[pair]
    }
    assert len(expected) < len(alice)  # the sample's two labellers do disagree
    out = tmp_path / "consensus.qrels"
    assert main(["qrels", "--store", str(store), "--consensus", "-o", str(out)]) == 0
    assert read(out) == expected


def test_agreement_of_imported_people_matches_sklearn(store: Path, capsys) -> None:
    capsys.readouterr()
    assert main(["agreement", "--store", str(store), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["labellers"] == ["alice", "bob"]
    (pair,) = data["pairs"]
    alice, bob = read(ALICE), read(BOB)
    both = sorted(set(alice) & set(bob))
    assert pair["n"] == len(both)
    a = [alice[p] for p in both]
    b = [bob[p] for p in both]
    assert pair["kappa"] == pytest.approx(cohen_kappa_score(a, b))
    assert pair["kappa_quadratic"] == pytest.approx(cohen_kappa_score(a, b, weights="quadratic"))
    # Judgments made elsewhere were shown at no position: no position bias is claimed from them.
    assert not data["position_bias"]


def test_report_on_the_store_equals_the_report_on_the_file(store: Path, capsys) -> None:
    runs = ["--run", f"bm25={SAMPLE / 'runs' / 'bm25.run'}"]
    rest = [*runs, "--strata", str(SAMPLE / "strata.csv"), "--measure", "Success@3"]
    capsys.readouterr()
    assert main(["report", "--qrels", str(store), "--labeller", "bob", *rest]) == 0
    from_store = capsys.readouterr().out
    assert main(["report", "--qrels", str(BOB), *rest]) == 0
    assert from_store == capsys.readouterr().out and "bm25" in from_store
