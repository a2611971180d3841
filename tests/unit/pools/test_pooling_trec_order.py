"""build_pool: the union of every run's top k in trec_eval's order, checked by hand and against
pytrec_eval (trec_eval's own code) on random runs full of tied scores."""

from __future__ import annotations

import polars as pl
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from goldset_tui.pooling.build import build_pool, pool_sizes, top_k


def run_frame(rows: list[tuple[str, str, float]]) -> pl.DataFrame:
    return pl.DataFrame(
        rows, schema={"query_id": pl.Utf8, "doc_id": pl.Utf8, "score": pl.Float64}, orient="row"
    )


# Hand-checked, depth 3.
# bm25 q1 scores: d1 2.0, d2 2.0, d3 1.5, d4 1.5, d5 1.0. Ties go to the larger doc id:
#   d2 (1), d1 (2), d4 (3) | d3 (4), d5 (5)
# dense q1: d4 0.9, d6 0.9, d1 0.8, d2 0.1  ->  d6 (1), d4 (2), d1 (3) | d2 (4)
# bm25 q2: "10", "9", "100" all 1.0; byte order "9" > "100" > "10"  ->  9 (1), 100 (2), 10 (3)
# Union q1: d2 {bm25 1}, d1 {bm25 2, dense 3}, d4 {bm25 3, dense 2}, d6 {dense 1}.
# Candidate order (best rank, then more systems first, then doc id): d2 (1, one system),
#   d6 (1, one), d1 (2, two), d4 (2, two).
BM25 = run_frame(
    [
        ("q1", "d5", 1.0),
        ("q1", "d1", 2.0),
        ("q1", "d3", 1.5),
        ("q1", "d2", 2.0),
        ("q1", "d4", 1.5),
        ("q2", "10", 1.0),
        ("q2", "9", 1.0),
        ("q2", "100", 1.0),
    ]
)
DENSE = run_frame([("q1", "d1", 0.8), ("q1", "d2", 0.1), ("q1", "d4", 0.9), ("q1", "d6", 0.9)])
EXPECTED = [
    ("q1", "d2", ["bm25"], [1]),
    ("q1", "d6", ["dense"], [1]),
    ("q1", "d1", ["bm25", "dense"], [2, 3]),
    ("q1", "d4", ["bm25", "dense"], [3, 2]),
    ("q2", "9", ["bm25"], [1]),
    ("q2", "100", ["bm25"], [2]),
    ("q2", "10", ["bm25"], [3]),
]


def test_hand_checked_pool_with_ties() -> None:
    pool = build_pool({"bm25": BM25, "dense": DENSE}, depth=3)
    assert pool.rows() == EXPECTED


def test_a_files_rank_column_is_ignored() -> None:
    # A run whose own rank column contradicts its scores: trec_eval follows the scores.
    lying = BM25.with_columns(pl.int_range(1, BM25.height + 1).alias("rank"))
    assert build_pool({"bm25": lying, "dense": DENSE}, depth=3).rows() == EXPECTED


def test_systems_follow_the_order_runs_are_given() -> None:
    pool = build_pool({"dense": DENSE, "bm25": BM25}, depth=3)
    row = pool.filter(pl.col("doc_id") == "d1").row(0)
    assert row[2:] == (["dense", "bm25"], [3, 2])


def test_pool_sizes_measure_the_overlap_discount() -> None:
    sizes = pool_sizes(build_pool({"bm25": BM25, "dense": DENSE}, depth=3), depth=3, systems=2)
    # q1: 4 candidates where the runs put forward 3 + 3 = 6, so overlap saves 1 - 4/6.
    # q2: only bm25 returns it: 3 of 3.
    assert sizes.select("query_id", "candidates", "contributed", "nominal").rows() == [
        ("q1", 4, 6, 6),
        ("q2", 3, 3, 6),
    ]
    assert sizes.get_column("discount").to_list() == pytest.approx([1 - 4 / 6, 0.0])


def test_depth_must_be_positive_and_runs_given() -> None:
    with pytest.raises(ValueError):
        build_pool({"bm25": BM25}, depth=0)
    with pytest.raises(ValueError):
        build_pool({}, depth=3)


def test_a_document_twice_in_one_runs_top_k_is_refused() -> None:
    twice = run_frame([("q", "d", 1.0), ("q", "d", 0.5)])
    with pytest.raises(ValueError, match="twice"):
        build_pool({"x": twice}, depth=2)


# --- against pytrec_eval -----------------------------------------------------------------------

doc_ids = st.sampled_from(["1", "10", "100", "2", "9", "a", "B", "b", "d-1", "d_1", "zz"])
scores = st.sampled_from([0.0, 0.5, 1.0, 1.0, 2.5, -1.0])


@st.composite
def runs(draw) -> dict[str, dict[str, dict[str, float]]]:
    systems = draw(
        st.lists(st.sampled_from(["s1", "s2", "s3", "s4"]), min_size=1, max_size=4, unique=True)
    )
    out = {}
    for name in systems:
        run = {}
        for q in draw(
            st.lists(st.sampled_from(["q1", "q2", "q3"]), min_size=1, max_size=3, unique=True)
        ):
            docs = draw(st.lists(doc_ids, min_size=1, max_size=11, unique=True))
            run[q] = {d: draw(scores) for d in docs}
        out[name] = run
    return out


def trec_eval_ranks(run: dict[str, dict[str, float]]) -> dict[tuple[str, str], int]:
    """The rank trec_eval gives each document: 1 / reciprocal rank with only it relevant."""
    probe_run, probe_qrels = {}, {}
    for q, docs in run.items():
        for d in docs:
            key = f"{q}|{d}"
            probe_run[key] = docs
            probe_qrels[key] = {d: 1}
    result = pytrec_eval.RelevanceEvaluator(probe_qrels, {"recip_rank"}).evaluate(probe_run)
    return {tuple(k.split("|", 1)): round(1 / v["recip_rank"]) for k, v in result.items()}


@settings(max_examples=60, deadline=None)
@given(runs(), st.integers(min_value=1, max_value=6))
def test_pool_matches_trec_eval_ranking(data, depth: int) -> None:
    frames = {
        name: run_frame([(q, d, s) for q, docs in run.items() for d, s in docs.items()])
        for name, run in data.items()
    }
    pool = build_pool(frames, depth)
    got = {(q, d, s): r for q, d, ss, rs in pool.rows() for s, r in zip(ss, rs, strict=True)}
    expected = {}
    for name, run in data.items():
        for (q, d), rank in trec_eval_ranks(run).items():
            if rank <= depth:
                expected[(q, d, name)] = rank
    assert got == expected
    # every (query, doc) once, systems in the order the runs were given
    assert pool.select("query_id", "doc_id").is_unique().all()
    order = list(data)
    for systems in pool.get_column("systems").to_list():
        assert systems == sorted(systems, key=order.index)


def test_top_k_without_scores_uses_given_rank() -> None:
    ranked = pl.DataFrame(
        {"query_id": ["q", "q", "q"], "doc_id": ["a", "b", "c"], "rank": [2, 1, 3]}
    )
    assert top_k(ranked, 2).sort("rank").get_column("doc_id").to_list() == ["b", "a"]
