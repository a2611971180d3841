"""A release in one command: `goldset report --qrels STORE --release R -m A -m B` on a store two
people judged uses their adjudicated consensus (the same qrels `goldset qrels --consensus`
exports) and records every measure; before any adjudication it says which --labeller to pick."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.adjudication.decisions import AdjudicationWriter
from goldset_tui.cli import main
from goldset_tui.history.records import load_records
from goldset_tui.io.trec import read_qrels
from goldset_tui.store import Project, sha256_file

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"
REL = SAMPLE / "releases" / "2026.1"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    store = tmp_path / "S"
    pool = SAMPLE / "pool.jsonl"
    Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    for name in ("alice", "bob"):
        path = SAMPLE / "judgments" / f"{name}.qrels"
        assert (
            main(["import", "--store", str(store), "--labeller", name, "--human", str(path)]) == 0
        )
    return store


def report(qrels: str | Path, *extra: str, form: str = "json") -> list[str]:
    runs = [a for n in ("bm25", "minilm") for a in ("--run", f"{n}={REL / (n + '.run')}")]
    return [
        "report", "--qrels", str(qrels), "--strata", str(SAMPLE / "strata.csv"), *runs,
        "--samples", "50", "--format", form, *extra,
    ]  # fmt: skip


def test_two_labellers_without_adjudication_say_which_labeller(store: Path, capsys) -> None:
    capsys.readouterr()
    argv = report(store, "--store", str(store), "--release", "r1")
    assert main(argv) == 2
    err = capsys.readouterr().err
    alice = read_qrels(SAMPLE / "judgments" / "alice.qrels").height
    bob = read_qrels(SAMPLE / "judgments" / "bob.qrels").height
    assert err.count("\n") == 1
    assert f"--labeller alice ({alice:,} judgments)" in err
    assert f"--labeller bob ({bob:,} judgments)" in err
    assert "goldset adjudicate --store" in err
    assert load_records(store) == []


def test_an_adjudicated_store_gives_its_consensus_and_records_each_measure(
    store: Path, tmp_path: Path, capsys
) -> None:
    alice = read_qrels(SAMPLE / "judgments" / "alice.qrels")
    bob = read_qrels(SAMPLE / "judgments" / "bob.qrels")
    split = alice.join(bob, on=["query_id", "doc_id"]).filter(
        pl.col("grade") != pl.col("grade_right")
    )
    assert split.height > 1
    with AdjudicationWriter(store, "dee", "unanimous-majority-adjudicator") as writer:
        q, d, grade, _ = split.row(0)
        writer.decide(q, d, grade)  # one decided; the rest still pending
    exported = tmp_path / "consensus.qrels"
    assert main(["qrels", "--store", str(store), "--consensus", "-o", str(exported)]) == 0
    capsys.readouterr()
    argv = report(store, "-m", "nDCG@10", "-m", "P@10", "--store", str(store), "--release", "r1")
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "adjudicated consensus of alice, bob" in err
    from_store = json.loads(out)
    assert [r["metric"] for r in from_store] == ["nDCG@10", "P@10"]
    # The same numbers as the two-step way: export the consensus, then report on the file.
    for i, measure in enumerate(("nDCG@10", "P@10")):
        assert main(report(exported, "--measure", measure)) == 0
        from_file = json.loads(capsys.readouterr().out)
        # The warnings too, but the store's say first what the file cannot: the pairs pending.
        pending, *rest = from_store[i].pop("warnings")
        assert "pairs pending adjudication" in pending and rest == from_file.pop("warnings")
        assert from_file == from_store[i]
    recorded = {(r.release, r.system, r.measure) for r in load_records(store)}
    assert recorded == {("r1", s, m) for s in ("bm25", "minilm") for m in ("nDCG@10", "P@10")}


def test_several_measures_as_csv_and_in_folders(tmp_path: Path, capsys) -> None:
    qrels = SAMPLE / "judgments" / "alice.qrels"
    out = tmp_path / "out"
    assert main(report(qrels, "-m", "nDCG@10", "-m", "P@10", "-o", str(out), form="csv")) == 0
    both = pl.read_csv(capsys.readouterr().out.encode(), infer_schema=False)
    for measure, folder in (("nDCG@10", "ndcg-10"), ("P@10", "p-10")):
        assert main(report(qrels, "--measure", measure, form="csv")) == 0
        text = capsys.readouterr().out
        alone = pl.read_csv(text.encode(), infer_schema=False)
        assert both.filter(pl.col("measure") == measure).drop("measure").equals(alone)
        assert (out / folder / "report.csv").read_text() == text
