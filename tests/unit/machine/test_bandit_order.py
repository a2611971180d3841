"""MaxMean, the bandit judging order of Losada, Parapar & Barreiro, traced by hand on a tiny pool.

The pool (runs listed B first, then A; ties go to the run listed first):

    q1  B: b1 b2 b3     A: a1 a2 a3       relevant: a1 a3
    q2  B: s  x  w      A: y  s  z        relevant: s

q1, posterior means (rel + 1) / (judged + 2):
  1. B 1/2, A 1/2: tie, B first -> b1, not relevant; B 1/3
  2. A 1/2 > B 1/3 -> a1, relevant; A 2/3
  3. A 2/3 -> a2, not relevant; A 2/4
  4. A 1/2 > B 1/3 -> a3, relevant; A 3/5, and A is exhausted
  5. B -> b2; 6. B -> b3
  Move-to-front instead judges b1 a1 a2 b2 a3 b3: it forgets that A found one relevant of two and
  B none of one, and finds a3 a judgment later.
q2:
  1. tie, B first -> s, relevant; s is in A's list too, so both runs count it: B 2/3, A 2/3
  2. tie, B first -> x, not relevant; B 2/4
  3. A 2/3 > B 1/2 -> y, not relevant; A 2/4
  4. tie, B first -> w; 5. A -> z (s already judged: skipped, not judged twice)
  Were s credited to B alone, step 3 would be a 1/2-1/2 tie and w would come before y.
Queries take turns: q1's first, q2's first, q1's second, ...
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from test_simulate import run_args

from goldset_tui.cli import main
from goldset_tui.commands import simulate as simulate_command
from goldset_tui.judging.bandit import maxmean_next, maxmean_sequence, posterior_mean
from goldset_tui.judging.simulate import ORDERS, judging_order

RUNS = {
    "B": {"q1": ["b1", "b2", "b3"], "q2": ["s", "x", "w"]},
    "A": {"q1": ["a1", "a2", "a3"], "q2": ["y", "s", "z"]},
}
RELEVANT = {("q1", "a1"), ("q1", "a3"), ("q2", "s")}
Q1 = ["b1", "a1", "a2", "a3", "b2", "b3"]
Q2 = ["s", "x", "y", "w", "z"]


def frame(by_query: dict[str, list[str]]) -> pl.DataFrame:
    rows = [(q, d, r) for q, docs in by_query.items() for r, d in enumerate(docs, 1)]
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "rank"], orient="row")


def per_query(q: str) -> dict[str, list[str]]:
    return {name: RUNS[name][q] for name in RUNS}


def test_posterior_mean_is_the_uniform_prior_updated() -> None:
    assert posterior_mean(0, 0) == 1 / 2
    assert posterior_mean(1, 0) == 2 / 3
    assert posterior_mean(2, 1) == 3 / 5


def test_maxmean_by_hand_per_query() -> None:
    assert maxmean_sequence(per_query("q1"), {"a1", "a3"}) == Q1
    assert maxmean_sequence(per_query("q2"), {"s"}) == Q2


def test_next_after_each_judgment_gives_the_same_order() -> None:
    # the incremental replay and the one-step choice the judging screen uses must agree
    for q, relevant in (("q1", {"a1", "a3"}), ("q2", {"s"})):
        judged: dict[str, bool] = {}
        order = []
        while (doc := maxmean_next(per_query(q), judged)) is not None:
            judged[doc] = doc in relevant
            order.append(doc)
        assert order == maxmean_sequence(per_query(q), relevant)


def test_judging_order_interleaves_queries_and_stops_at_the_budget() -> None:
    runs = {n: frame(r) for n, r in RUNS.items()}
    order = judging_order(runs, RELEVANT, depth=3, order="mm", budget=100)
    expected = [
        ("q1", "b1"),
        ("q2", "s"),
        ("q1", "a1"),
        ("q2", "x"),
        ("q1", "a2"),
        ("q2", "y"),
        ("q1", "a3"),
        ("q2", "w"),
        ("q1", "b2"),
        ("q2", "z"),
        ("q1", "b3"),
    ]
    assert order == expected
    assert judging_order(runs, RELEVANT, depth=3, order="mm", budget=4) == expected[:4]
    # depth 1: each run's top document only
    assert judging_order(runs, RELEVANT, depth=1, order="mm", budget=100) == [
        ("q1", "b1"),
        ("q2", "s"),
        ("q1", "a1"),
        ("q2", "y"),
    ]


def test_mm_finds_a3_before_move_to_front() -> None:
    runs = {n: frame({"q1": r["q1"]}) for n, r in RUNS.items()}
    mtf = judging_order(runs, RELEVANT, depth=3, order="mtf", budget=100)
    assert [d for _, d in mtf] == ["b1", "a1", "a2", "b2", "a3", "b3"]
    mm = judging_order(runs, RELEVANT, depth=3, order="mm", budget=100)
    assert [d for _, d in mm] == Q1


def test_command_offers_every_order(tmp_path: Path, capsys) -> None:
    assert simulate_command.NAME == "simulate"
    qrels = tmp_path / "q.qrels"
    qrels.write_text("".join(f"{q} 0 {d} 1\n" for q, d in sorted(RELEVANT)))
    args = ["simulate", "--qrels", str(qrels), "--depth", "3", "--budget", "11", "--step", "1"]
    args += run_args(tmp_path, RUNS)
    for order in ORDERS:
        assert main([*args, "--order", order]) == 0
        assert json.loads(capsys.readouterr().out)["order"] == order
    assert main([*args, "--order", "mm"]) == 0
    report = json.loads(capsys.readouterr().out)
    # relevant found along b1 s a1 x a2 y a3 w b2 z b3
    assert [s["relevant_found"] for s in report["steps"]] == [0, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3]
