"""The reading view's figures, without a terminal: each checked by another path to the same
number (the fused run over every query, the overlap counts, trec_eval's tie order)."""

from __future__ import annotations

import random

import polars as pl

from goldset_tui.eval.fusion import rrf
from goldset_tui.eval.overlap import BOTH, ONLY_A, ONLY_B, pair_overlap, pair_queries
from goldset_tui.report.reading import (
    disagree,
    labelled_grades,
    query_rankings,
    relevant_outside,
    tied_ranks,
)


def _run(rows: list[tuple[str, str, float]]) -> pl.DataFrame:
    frame = pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row")
    # trec_eval's order: score descending, then document id descending.
    frame = frame.sort(["query_id", "score", "doc_id"], descending=[False, True, True])
    return frame.with_columns(rank=pl.int_range(1, pl.len() + 1).over("query_id"))


def _random_runs(seed: int) -> dict[str, pl.DataFrame]:
    rng = random.Random(seed)
    runs = {}
    for name in ("a", "b"):
        rows = [
            (f"q{q}", f"d{rng.randrange(40)}", float(rng.randrange(6)))
            for q in range(8)
            for _ in range(12)
        ]
        runs[name] = _run(list({(q, d): (q, d, s) for q, d, s in rows}.values()))
    return runs


def test_the_fused_ranking_of_one_query_is_the_fused_runs() -> None:
    runs = _random_runs(1)
    whole = rrf(list(runs.values()), depth=5)
    for q in ("q0", "q3", "q7"):
        mine = query_rankings(runs, q, fused="rrf", fusion_depth=5)["rrf"]
        theirs = whole.filter(pl.col("query_id") == q).sort("rank")
        assert mine.select("doc_id", "rank").rows() == theirs.select("doc_id", "rank").rows()


def test_ties_are_flagged_where_they_decide_the_order_and_across_the_cut() -> None:
    run = _run(
        [
            ("q", "d1", 9.0),
            ("q", "d2", 7.0),
            ("q", "d3", 7.0),  # ranks 2 and 3 tied: d3 before d2 by id
            ("q", "d4", 5.0),
            ("q", "d5", 4.0),  # rank 5 (the cut at k = 5) tied with rank 6
            ("q", "d6", 4.0),
        ]
    )
    rankings = query_rankings({"r": run}, "q")
    assert rankings["r"].get_column("doc_id").to_list()[:3] == ["d1", "d3", "d2"]
    assert tied_ranks(rankings, 5) == {("r", 2), ("r", 3), ("r", 5)}
    assert tied_ranks(rankings, 4) == {("r", 2), ("r", 3)}


def test_relevant_documents_outside_every_top_k_carry_each_systems_rank() -> None:
    runs = _random_runs(2)
    rankings = query_rankings(runs, "q0")
    ranks = {
        name: dict(run.filter(pl.col("query_id") == "q0").select("doc_id", "rank").iter_rows())
        for name, run in runs.items()
    }
    inside = {d for r in ranks.values() for d, k in r.items() if k <= 3}
    outside = sorted({d for r in ranks.values() for d in r} - inside)
    assert len(outside) >= 2
    qrels = pl.DataFrame(
        {
            "query_id": ["q0"] * 5,
            "doc_id": [outside[0], "nowhere", outside[1], sorted(inside)[0], "nowhere"],
            "grade": [1, 2, 0, 1, 1],
        }
    )
    out = relevant_outside(qrels, rankings, "q0", 3)
    # Best grade first; grade 0 and a top-3 document left out; "nowhere" once, at its best grade.
    assert [(d, g) for d, g, _ in out] == [("nowhere", 2), (outside[0], 1)]
    assert out[0][2] == {"a": None, "b": None}
    assert out[1][2] == {name: ranks[name].get(outside[0]) for name in runs}


def test_a_pairs_queries_add_up_to_its_overlap_counts() -> None:
    rng = random.Random(3)
    scores = pl.DataFrame(
        [(s, f"q{q}", float(rng.random() < 0.6)) for q in range(60) for s in ("a", "b", "rrf")],
        schema=["system", "query_id", "value"],
        orient="row",
    )
    counts = pair_overlap(scores, "a", "b")
    rows = pair_queries(scores, "a", "b", "rrf")
    by_case = dict(rows.group_by("case").len().iter_rows())
    assert by_case.get(BOTH, 0) == counts["both_miss"]
    assert by_case.get(ONLY_A, 0) == counts["miss_a"] - counts["both_miss"]
    assert by_case.get(ONLY_B, 0) == counts["miss_b"] - counts["both_miss"]
    wide = scores.pivot(on="system", index="query_id", values="value")
    rescued = wide.filter((pl.col("a") == 0) & (pl.col("b") == 0) & (pl.col("rrf") > 0)).height
    assert rows.filter((pl.col("case") == BOTH) & pl.col("rescued")).height == rescued


def test_grades_by_labeller_and_disagreement() -> None:
    labelled = pl.DataFrame(
        {
            "query_id": ["q", "q", "q", "q"],
            "doc_id": ["d1", "d1", "d2", "d2"],
            "labeller": ["bob", "alice", "alice", "bob"],
            "grade": [0, 2, 1, 1],
        }
    )
    grades = labelled_grades(labelled, "q")
    assert grades == {"d1": [("alice", 2), ("bob", 0)], "d2": [("alice", 1), ("bob", 1)]}
    assert disagree(grades["d1"]) and not disagree(grades["d2"])
