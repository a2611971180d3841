"""`goldset agreement` with a machine judge, as a user meets it: the human consensus the runs are
scored against is the humans' alone, the name `consensus` cannot mean two label sets at once, the
machine keeps its runs row with one human, and the by-stratum table says how many queries each
row rests on."""

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
        + ["--run", f"r={run}", "--samples", "0", "--format", "json"]
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
    from goldset_tui.machine.example import build_sample_machine_store

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
        + ["--scale", "0-3", "--run", f"r={run}", "--samples", "0", "--format", "json"]
    )
    assert code == 0
    rows = {row["qrels"]: row for row in json.loads(capsys.readouterr().out)["runs"]}
    # P@10 by hand: alice finds d1 relevant (1/10), the machine d1 and d2 (2/10).
    assert rows["alice"]["scores"]["P@10"] == pytest.approx(0.1)
    assert rows["llm"]["scores"]["P@10"] == pytest.approx(0.2)


def test_the_markdown_by_stratum_says_how_many_queries_each_row_rests_on(
    tmp_path: Path, capsys
) -> None:
    # q1 in stratum s1, q2 and q3 in s2; the machine grades one higher on q1. An interval over
    # one or two queries looks precise ([0.027, 0.031] on the sample) unless the count is shown.
    human = ["q1 0 a 0", "q2 0 a 1", "q3 0 a 2", "q3 0 b 0"]
    machine = ["q1 0 a 1", "q2 0 a 1", "q3 0 a 2", "q3 0 b 0"]
    h = write(tmp_path / "h.qrels", human)
    m = write(tmp_path / "m.qrels", machine)
    strata = write(tmp_path / "s.csv", ["query_id,stratum", "q1,s1", "q2,s2", "q3,s2"])
    code = main(
        ["agreement", "--qrels", f"h={h}", "--qrels", f"m={m}", "--machine", "m"]
        + ["--scale", "0-3", "--strata", strata, "--samples", "20"]
    )
    assert code == 0
    out = capsys.readouterr().out
    table = out[out.index("### m by stratum") :].splitlines()
    assert "| against | stratum | n | queries |" in table[2]
    rows = [line for line in table if line.startswith("| h |")]
    assert rows[0].startswith("| h | s1 | 1 | 1 | ") and rows[1].startswith("| h | s2 | 3 | 2 | ")
