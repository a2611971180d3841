"""topk_frame joins the qrels straight onto the runs' top k when no pair there is judged twice,
and falls back to the highest grade of each pair when one is (a store's qrels may hold two): the
frame must be the one the grouping by pair always gave, rows and order."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from goldset_tui.report.compute import topk_frame


def grouped(qrels: pl.DataFrame, runs: dict[str, pl.DataFrame], k: int, queries: pl.Series):
    """The frame as it was built before: every pair's highest grade >= 0, then the join."""
    grades = (
        qrels.filter(pl.col("grade") >= 0).group_by("query_id", "doc_id").agg(pl.col("grade").max())
    )
    top = pl.concat(
        run.filter((pl.col("rank") <= k) & pl.col("query_id").is_in(queries.implode())).select(
            pl.lit(name).alias("system"), "query_id", pl.col("rank").cast(pl.Int64), "doc_id"
        )
        for name, run in runs.items()
    )
    return top.join(grades, on=["query_id", "doc_id"], how="left").sort(
        "system", "query_id", "rank"
    )


def _run(draw, docs: int) -> pl.DataFrame:
    rows = []
    for q in ("q1", "q2", "q3"):
        chosen = draw(st.permutations(range(docs)))[: draw(st.integers(1, docs))]
        rows += [(q, f"d{d}", rank) for rank, d in enumerate(chosen, start=1)]
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "rank"], orient="row")


@st.composite
def cases(draw):
    docs = draw(st.integers(1, 8))
    runs = {name: _run(draw, docs) for name in ("b", "a", "rrf")}  # not in name order
    judged = draw(
        st.lists(
            st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.integers(0, docs - 1)), max_size=20
        )
    )
    grades = draw(st.lists(st.integers(-1, 3), min_size=len(judged), max_size=len(judged)))
    qrels = pl.DataFrame(
        [(q, f"d{d}", g) for (q, d), g in zip(judged, grades, strict=True)],
        schema={"query_id": pl.Utf8, "doc_id": pl.Utf8, "grade": pl.Int64},
        orient="row",
    )
    k = draw(st.integers(1, docs + 1))
    queries = pl.Series(draw(st.lists(st.sampled_from(["q1", "q2", "q3"]), unique=True)))
    return qrels, runs, k, queries.cast(pl.Utf8)


@settings(max_examples=150, deadline=None)
@given(case=cases())
def test_the_same_frame_as_grouping_every_pair(case) -> None:
    qrels, runs, k, queries = case
    got = topk_frame(qrels, runs, k, queries)
    assert got.equals(grouped(qrels, runs, k, queries))


def test_a_pair_judged_twice_keeps_its_highest_grade_once() -> None:
    run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "rank": [1, 2]})
    qrels = pl.DataFrame(
        {"query_id": ["q1", "q1", "q1"], "doc_id": ["a", "a", "b"], "grade": [1, 2, -1]}
    )
    got = topk_frame(qrels, {"s": run}, 2, pl.Series(["q1"]))
    assert got.rows() == [("s", "q1", 1, "a", 2), ("s", "q1", 2, "b", None)]
