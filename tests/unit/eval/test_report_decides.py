"""What deciding one pair decides (report/decides.py), against pytrec_eval: a system "fails
unless" when its P@k is 0 with the pair graded 0 and above 0 with it graded at the threshold; it
"passes either way" when its P@k is above 0 with the pair graded 0."""

from __future__ import annotations

import random

import polars as pl
import pytrec_eval

from goldset_tui.report.decides import stake_lines, stakes


def p_at(run: dict[str, float], qrels: dict[str, int], k: int) -> float:
    measure = f"P_{k}"
    got = pytrec_eval.RelevanceEvaluator({"q": qrels}, {measure}).evaluate({"q": run})
    return got["q"][measure]


def judged(grades: dict, pair: str, pair_grade: int, threshold: int) -> dict[str, int]:
    """trec_eval's qrels with ``pair`` graded ``pair_grade``: relevance is grade >= 1 there, so
    grades are cut at ``threshold`` first; ungraded documents stay out (unjudged)."""
    shown = {d: g for d, g in grades.items() if g is not None and d != pair}
    shown[pair] = pair_grade
    return {d: int(g >= threshold) for d, g in shown.items()}


def test_stakes_match_trec_eval_on_random_top_k_lists() -> None:
    rng = random.Random(7)
    checked = {True: 0, False: 0}
    for _ in range(300):
        k, threshold = 5, rng.choice([1, 2])
        docs = [f"d{i}" for i in range(12)]
        grades = {d: rng.choice([None, None, 0, 0, 1, 2]) for d in docs}
        rows = []
        runs = {}
        for system in ("bm25", "dense", "rrf"):
            top = rng.sample(docs, k)
            runs[system] = {d: float(k - i) for i, d in enumerate(top)}
            rows += [(system, "q", i + 1, d, grades[d]) for i, d in enumerate(top)]
        topk = pl.DataFrame(
            rows,
            schema={"system": pl.Utf8, "query_id": pl.Utf8, "rank": pl.Int64, "doc_id": pl.Utf8,
                    "grade": pl.Int64},
            orient="row",
        )  # fmt: skip
        pair = rng.choice(docs)
        found = {s.system: s for s in stakes(topk, "q", pair, threshold)}
        assert set(found) == {s for s, run in runs.items() if pair in run}
        for system, stake in found.items():
            low = p_at(runs[system], judged(grades, pair, threshold - 1, threshold), k)
            high = p_at(runs[system], judged(grades, pair, threshold, threshold), k)
            assert stake.fails_unless == (low == 0 and high > 0)
            assert (not stake.fails_unless) == (low > 0)
            others = [d for d in runs[system] if d != pair]
            assert stake.other_holes == sum(grades[d] is None for d in others)
            checked[stake.fails_unless] += 1
    assert checked[True] > 20 and checked[False] > 20  # both answers were exercised


def test_lines_say_who_fails_first_and_a_pair_in_no_top_k() -> None:
    topk = pl.DataFrame(
        {
            "system": ["dense", "dense", "bm25", "bm25"],
            "query_id": ["q3"] * 4,
            "rank": [1, 2, 1, 2],
            "doc_id": ["sdk/retries", "errors/conn-reset", "errors/conn-reset", "changelog"],
            "grade": [2, None, None, None],
        }
    )
    lines = stake_lines(stakes(topk, "q3", "errors/conn-reset", 1), "q3", 1, 10, 2)
    assert lines == [
        "bm25 fails q3 unless this is graded >= 1 (or one of its 1 other ungraded)",
        "dense passes q3 either way",
    ]
    assert stake_lines(stakes(topk, "q3", "nowhere", 1), "q3", 1, 10, 2) == [
        "no system's top 10 holds it (2 known): deciding it decides no failure"
    ]
