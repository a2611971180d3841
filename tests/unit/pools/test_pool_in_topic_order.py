"""`goldset pool` puts the pool in topic order with one sort of packed integer keys (then the
document id) instead of sorting by query id and again by topic: the same rows in the same order
as the straightforward way, on random runs with tied ranks, shared documents, queries missing
from the topics and topics missing from the runs."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from goldset_tui.app.pooling import _restrict_to_topics
from goldset_tui.pooling.build import POOL_COLUMNS, build_pool, order_pool, pool_candidates

QUERIES = ["q1", "q10", "q2", "9", "Z", "é"]
DOCS = ["d1", "d2", "d10", "D", "100", "9", "ü"]


def straightforward(runs: dict[str, pl.DataFrame], depth: int, topics: pl.DataFrame):
    """The pool by query id, then put in topic order by a stable sort (what goldset did)."""
    pool = build_pool(runs, depth)
    order = topics.with_row_index("_topic")
    kept = (
        pool.join(order, on="query_id", how="inner")
        .sort("_topic", maintain_order=True)
        .drop("_topic")
    )
    run_ids = pool.get_column("query_id").unique(maintain_order=True)
    return kept, run_ids


@st.composite
def runs_and_topics(draw):
    runs = {}
    for name in draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, unique=True)):
        rows = []
        for query in draw(st.lists(st.sampled_from(QUERIES), unique=True, max_size=4)):
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, unique=True))
            rows += [(query, doc, draw(st.sampled_from([0.0, 0.5, 1.0, 2.0]))) for doc in docs]
        runs[name] = pl.DataFrame(
            rows,
            schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64},
            orient="row",
        )
    topics = draw(st.lists(st.sampled_from([*QUERIES, "t_none"]), unique=True, min_size=1))
    frame = pl.DataFrame({"query_id": topics, "query": [f"text {t}" for t in topics]})
    return runs, draw(st.integers(1, 5)), frame


@settings(max_examples=300, deadline=None)
@given(runs_and_topics())
def test_same_rows_in_the_same_order(case):
    runs, depth, topics = case
    kept, skipped, empty = _restrict_to_topics(pool_candidates(runs, depth), topics)
    expected, run_ids = straightforward(runs, depth, topics)
    assert kept.select(expected.columns).rows() == expected.rows()
    expected_skipped = run_ids.filter(~run_ids.is_in(topics.get_column("query_id").implode()))
    assert skipped.to_list() == expected_skipped.to_list()
    topic_ids = topics.get_column("query_id")
    assert empty.to_list() == topic_ids.filter(~topic_ids.is_in(run_ids.implode())).to_list()


def test_packed_and_plain_sort_agree_beyond_the_packed_range():
    """Keys too large to pack fall back to the plain sort, with the same order."""
    pool = pl.DataFrame(
        {
            "query_id": ["a", "a", "b", "b"],
            "doc_id": ["x", "y", "x", "z"],
            "systems": [["s"], ["s", "t"], ["t"], ["s"]],
            "ranks": [[1], [2, 1], [1 << 25], [3]],
            "_best": [1, 1, 1 << 25, 3],
            "_systems": [1, 2, 1, 1],
            "_topic": [1 << 25, 1 << 25, 0, 0],
        },
        schema_overrides={"_systems": pl.UInt32, "_topic": pl.UInt32},
    )
    plain = pool.sort(
        ["_topic", "_best", "_systems", "doc_id"], descending=[False, False, True, False]
    )
    columns = list(POOL_COLUMNS)
    assert order_pool(pool, "_topic").select(columns).rows() == plain.select(columns).rows()
    small = pool.with_columns(pl.col("_topic") // (1 << 20), pl.col("_best").clip(0, 9))
    plain = small.sort(
        ["_topic", "_best", "_systems", "doc_id"], descending=[False, False, True, False]
    )
    assert order_pool(small, "_topic").rows() == plain.rows()
