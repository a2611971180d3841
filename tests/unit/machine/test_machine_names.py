"""`goldset agreement --run` with a machine judge: the human consensus the runs are scored
against is the humans' alone, and the name `consensus` cannot mean two label sets at once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goldset_tui.cli import main


def write(path: Path, lines: list[str]) -> str:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_machine_vote_never_settles_a_human_disagreement_in_the_runs_table(
    tmp_path: Path, capsys
) -> None:
    # alice and bob disagree on (q1, d1); the machine sides with alice. Counted as a third
    # vote it would make a 2-of-3 majority, but the consensus is the humans': the pair is pending.
    alice = write(tmp_path / "alice.qrels", ["q1 0 d1 2", "q1 0 d2 1"])
    bob = write(tmp_path / "bob.qrels", ["q1 0 d1 0", "q1 0 d2 1"])
    llm = write(tmp_path / "llm.qrels", ["q1 0 d1 2", "q1 0 d2 1"])
    run = write(tmp_path / "r.run", ["q1 Q0 d1 1 2.0 r", "q1 Q0 d2 2 1.0 r"])
    code = main(
        ["agreement", "--qrels", f"alice={alice}", "--qrels", f"bob={bob}"]
        + ["--qrels", f"llm={llm}", "--machine", "llm", "--scale", "0-3"]
        + ["--run", f"r={run}", "--replicates", "0", "--format", "json"]
    )
    assert code == 0
    rows = {row["qrels"]: row for row in json.loads(capsys.readouterr().out)["runs"]}
    consensus = rows["consensus"]
    assert consensus["pending"] == 1 and consensus["pending_retrieved"] == 1
    # By hand: d1 taken out of the run (pending), d2 (unanimous 1) moves to rank 1:
    # P@10 = 1 relevant / 10 = 0.1; the machine's vote would have made it 2 / 10.
    assert consensus["scores"]["P@10"] == pytest.approx(0.1)
    assert rows["llm"]["scores"]["P@10"] == pytest.approx(0.2)


def test_a_qrels_file_named_consensus_is_refused(tmp_path: Path, capsys) -> None:
    # `consensus` is the name of the human consensus in every table; a label set under that
    # name silently replaced it (the system ranking came out empty).
    cons = write(tmp_path / "cons.qrels", ["q1 0 d1 2", "q1 0 d2 1"])
    llm = write(tmp_path / "llm.qrels", ["q1 0 d1 2", "q1 0 d2 0"])
    run = write(tmp_path / "r.run", ["q1 Q0 d1 1 2.0 r", "q1 Q0 d2 2 1.0 r"])
    code = main(
        ["agreement", "--qrels", f"consensus={cons}", "--qrels", f"llm={llm}"]
        + ["--machine", "llm", "--scale", "0-3", "--run", f"r={run}", "--format", "json"]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "consensus" in err and "Traceback" not in err


def test_a_machine_cannot_be_imported_as_consensus(tmp_path: Path, capsys) -> None:
    from goldset_tui.agreement.machine_example import build_sample_machine_store

    sample = Path(__file__).parents[3] / "sample_data"
    store = build_sample_machine_store(tmp_path / "mj", sample)
    labels = sample / "judgments" / "llm.jsonl"
    before = sorted(p.name for p in store.rglob("*"))
    code = main(
        ["import", "--store", str(store), "--labeller", "consensus", "--machine", str(labels)]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "consensus" in err
    assert sorted(p.name for p in store.rglob("*")) == before


def test_one_human_and_a_machine_both_get_a_runs_row(tmp_path: Path, capsys) -> None:
    # With two humans the machine had its row in the runs table; with one it was dropped.
    alice = write(tmp_path / "alice.qrels", ["q1 0 d1 2", "q1 0 d2 0"])
    llm = write(tmp_path / "llm.qrels", ["q1 0 d1 2", "q1 0 d2 1"])
    run = write(tmp_path / "r.run", ["q1 Q0 d1 1 2.0 r", "q1 Q0 d2 2 1.0 r"])
    code = main(
        ["agreement", "--qrels", f"alice={alice}", "--qrels", f"llm={llm}", "--machine", "llm"]
        + ["--scale", "0-3", "--run", f"r={run}", "--replicates", "0", "--format", "json"]
    )
    assert code == 0
    rows = {row["qrels"]: row for row in json.loads(capsys.readouterr().out)["runs"]}
    # P@10 by hand: alice finds d1 relevant (1/10), the machine d1 and d2 (2/10).
    assert rows["alice"]["scores"]["P@10"] == pytest.approx(0.1)
    assert rows["llm"]["scores"]["P@10"] == pytest.approx(0.2)
