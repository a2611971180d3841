"""missing_from_runs looks a run's queries up through its rank-1 rows (one a query in a ranked
run) and then in every row for the queries those miss: a query is missing exactly when no row of
the run names it, whatever its ranks say."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from goldset_tui.report.compute import missing_from_runs

QUERIES = ["q1", "q2", "q3", "q4", "q5"]


@settings(max_examples=100, deadline=None)
@given(
    rows=st.lists(st.tuples(st.sampled_from(QUERIES), st.integers(0, 3)), max_size=12),
    golden=st.lists(st.sampled_from([*QUERIES, "q6"]), unique=True),
    ranked=st.booleans(),
)
def test_missing_is_no_row_naming_the_query(rows, golden, ranked) -> None:
    run = pl.DataFrame(
        [(q, f"d{i}", rank) for i, (q, rank) in enumerate(rows)],
        schema={"query_id": pl.Utf8, "doc_id": pl.Utf8, "rank": pl.Int64},
        orient="row",
    )
    if not ranked:
        run = run.drop("rank")
    named = {q for q, _ in rows}
    want = [q for q in golden if q not in named]
    got = missing_from_runs({"r": run}, pl.Series(golden, dtype=pl.Utf8))
    assert got == ({"r": want} if want else {})


def test_a_query_without_rank_one_is_not_missing() -> None:
    run = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "rank": [1, 2]})
    assert missing_from_runs({"r": run}, pl.Series(["q1", "q2", "q3"])) == {"r": ["q3"]}
