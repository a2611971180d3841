"""`goldset simulate`: depth and move-to-front orders traced by hand on a tiny pool."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from goldset_tui.cli import main
from goldset_tui.judging.simulate import judging_order

# Run A: q1 -> d1 d2 d3, q2 -> e1;  run B: q1 -> d4 d1 d5, q2 -> e2.  Relevant: d2, d4, e2.
RUNS = {
    "A": {"q1": ["d1", "d2", "d3"], "q2": ["e1"]},
    "B": {"q1": ["d4", "d1", "d5"], "q2": ["e2"]},
}
RELEVANT = {("q1", "d2"), ("q1", "d4"), ("q2", "e2")}


def frame(by_query: dict[str, list[str]]) -> pl.DataFrame:
    rows = [(q, d, r) for q, docs in by_query.items() for r, d in enumerate(docs, 1)]
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "rank"], orient="row")


def run_args(folder: Path, runs: dict[str, dict[str, list[str]]]) -> list[str]:
    """Write each run as a TREC file in ``folder``; the ``--run NAME=PATH`` arguments for them."""
    args = []
    for name, by_query in runs.items():
        lines = [
            f"{q} Q0 {d} {r} {10 - r} t"
            for q, docs in by_query.items()
            for r, d in enumerate(docs, 1)
        ]
        (folder / f"{name}.run").write_text("\n".join(lines) + "\n")
        args += ["--run", f"{name}={folder / name}.run"]
    return args


def test_depth_order_by_hand() -> None:
    runs = {n: frame(r) for n, r in RUNS.items()}
    # rank 1: q1 A d1, q1 B d4, q2 A e1, q2 B e2; rank 2: q1 A d2 (B's d1 already taken);
    # rank 3: q1 A d3, q1 B d5
    order = judging_order(runs, RELEVANT, depth=3, order="depth", budget=100)
    assert order == [
        ("q1", "d1"),
        ("q1", "d4"),
        ("q2", "e1"),
        ("q2", "e2"),
        ("q1", "d2"),
        ("q1", "d3"),
        ("q1", "d5"),
    ]
    assert judging_order(runs, RELEVANT, depth=1, order="depth", budget=3) == order[:3]


def test_move_to_front_by_hand() -> None:
    runs = {n: frame(r) for n, r in RUNS.items()}
    # Queries take turns. q1 queue [A, B]: A's d1 not relevant -> [B, A]; q2: A's e1 not
    # relevant -> [B, A]; q1: B's d4 relevant, B stays in front; q2: B's e2 relevant;
    # q1: B's next is d1 (judged) so d5, not relevant -> [A, B]; q2: both runs exhausted;
    # q1: A's next unjudged is d2, relevant; then A's d3.
    order = judging_order(runs, RELEVANT, depth=3, order="mtf", budget=100)
    assert order == [
        ("q1", "d1"),
        ("q2", "e1"),
        ("q1", "d4"),
        ("q2", "e2"),
        ("q1", "d5"),
        ("q1", "d2"),
        ("q1", "d3"),
    ]
    assert judging_order(runs, RELEVANT, depth=3, order="mtf", budget=4) == order[:4]


def test_command_steps(tmp_path: Path, capsys) -> None:
    qrels = tmp_path / "q.qrels"
    qrels.write_text("".join(f"{q} 0 {d} 1\n" for q, d in sorted(RELEVANT)) + "q1 0 d1 0\n")
    args = ["simulate", "--qrels", str(qrels), "--depth", "3", "--budget", "7", "--step", "1"]
    args += run_args(tmp_path, RUNS)
    assert main([*args, "--order", "mtf"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["pool"] == 7 and report["relevant_in_pool"] == 3
    assert [s["relevant_found"] for s in report["steps"]] == [0, 0, 1, 2, 2, 3, 3]
    assert report["steps"][2]["share"] == 1 / 3
    assert all(s["kendall_tau"] is None for s in report["steps"])  # two systems only
    assert main([*args, "--order", "depth"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [s["relevant_found"] for s in report["steps"]] == [0, 1, 1, 2, 3, 3, 3]
    # a third run: with everything judged the ranking is the full one, tau 1
    (tmp_path / "C.run").write_text("q1 Q0 d2 1 9 t\nq2 Q0 e2 1 9 t\n")
    assert main([*args, "--run", f"C={tmp_path / 'C.run'}", "--order", "depth"]) == 0
    assert json.loads(capsys.readouterr().out)["steps"][-1]["kendall_tau"] == 1.0
    assert main([*args, "--order", "depth", "--budget", "0"]) == 2


def test_queries_the_qrels_never_judged_are_left_out(tmp_path: Path, capsys) -> None:
    # The qrels judge q1 and q2 only (partial qrels, e.g. one labeller's third of the queries);
    # both runs also answer q3. Counting q3's pairs as judged not relevant spent the budget on a
    # query nobody judged and reported its documents as found to be not relevant: the pool was
    # 9 pairs and depth order found 2 relevant in the first 7, where the judged pool has 7 pairs
    # and 3 relevant. By hand (depth order over q1, q2 as in test_depth_order_by_hand):
    # d1 -, d4 +, e1 -, e2 +, d2 +, d3 -, d5 -.
    qrels = tmp_path / "q.qrels"
    qrels.write_text("".join(f"{q} 0 {d} 1\n" for q, d in sorted(RELEVANT)) + "q1 0 d1 0\n")
    runs = {name: {**by_query, "q3": [f"x{name}"]} for name, by_query in RUNS.items()}
    args = ["simulate", "--qrels", str(qrels), "--depth", "3", "--budget", "7", "--step", "1"]
    assert main([*args, *run_args(tmp_path, runs), "--order", "depth"]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["pool"] == 7 and report["relevant_in_pool"] == 3
    assert [s["relevant_found"] for s in report["steps"]] == [0, 1, 1, 2, 3, 3, 3]
    assert report["queries"] == 2 and report["queries_without_judgments"] == 1
    assert "1 query" in captured.err and "q3" in captured.err


def test_runs_sharing_no_query_with_the_qrels_are_refused(tmp_path: Path, capsys) -> None:
    qrels = tmp_path / "q.qrels"
    qrels.write_text("z9 0 d1 1\n")
    args = ["simulate", "--qrels", str(qrels), "--budget", "5", *run_args(tmp_path, RUNS)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no query" in err
