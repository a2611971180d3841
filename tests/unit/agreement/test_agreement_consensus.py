"""The consensus rules, adjudication journals, overlap assignment and repeats."""

from __future__ import annotations

import json
from collections import Counter

import polars as pl
import pytest

from goldset_tui.adjudication.consensus import MEDIAN, UMA, decide, open_pairs
from goldset_tui.adjudication.decisions import AdjudicationWriter, journal_path, load_adjudications
from goldset_tui.agreement.assignment import assigned_query_ids, overlap_query_ids
from goldset_tui.agreement.repeats import repeat_pairs, self_consistency
from goldset_tui.agreement.units import ratings_from_qrels
from goldset_tui.model import GradeScale

NO_ADJ = pl.DataFrame(
    schema={"query_id": pl.Utf8, "doc_id": pl.Utf8, "grade": pl.Int64, "adjudicator": pl.Utf8}
)


def ratings(table: dict[str, dict[tuple[str, str], int]]) -> pl.DataFrame:
    frames = {
        name: pl.DataFrame(
            [(q, d, g) for (q, d), g in grades.items()],
            schema=["query_id", "doc_id", "grade"],
            orient="row",
        )
        for name, grades in table.items()
    }
    return ratings_from_qrels(frames)


THREE = ratings(
    {
        "ann": {("q1", "a"): 3, ("q1", "b"): 0, ("q1", "c"): 2, ("q1", "d"): 1, ("q2", "x"): 2},
        "bob": {("q1", "a"): 3, ("q1", "b"): 3, ("q1", "c"): 1, ("q1", "d"): 1},
        "cy": {("q1", "a"): 3, ("q1", "b"): 3, ("q1", "c"): 0},
    }
)


def by_pair(provenance: pl.DataFrame) -> dict[tuple[str, str], dict]:
    return {(r["query_id"], r["doc_id"]): r for r in provenance.iter_rows(named=True)}


def test_unanimous_majority_adjudicator_rule() -> None:
    got = by_pair(decide(THREE, NO_ADJ, UMA))
    assert got["q1", "a"]["how"] == "unanimous"
    assert (got["q1", "a"]["grade"], got["q1", "a"]["by"]) == (3, "ann,bob,cy")
    assert (got["q1", "b"]["grade"], got["q1", "b"]["how"], got["q1", "b"]["by"]) == (
        3,
        "majority",
        "bob,cy",
    )
    # 2, 1, 0: no majority and no adjudicator yet -> pending, no grade.
    assert (got["q1", "c"]["grade"], got["q1", "c"]["how"]) == (None, "pending")
    assert (got["q1", "d"]["grade"], got["q1", "d"]["how"]) == (1, "unanimous")
    assert (got["q2", "x"]["grade"], got["q2", "x"]["how"], got["q2", "x"]["by"]) == (
        2,
        "single",
        "ann",
    )
    assert got["q1", "c"]["grades"] == "ann=2 bob=1 cy=0"


def test_adjudicator_decides_only_what_the_rule_leaves_open() -> None:
    adj = pl.DataFrame(
        {
            "query_id": ["q1", "q1"],
            "doc_id": ["c", "b"],
            "grade": [1, 0],
            "adjudicator": ["dee", "dee"],
        }
    )
    got = by_pair(decide(THREE, adj, UMA))
    assert (got["q1", "c"]["grade"], got["q1", "c"]["how"], got["q1", "c"]["by"]) == (
        1,
        "adjudicator",
        "dee",
    )
    # q1/b has a majority: the rule order puts majority before the adjudicator.
    assert (got["q1", "b"]["grade"], got["q1", "b"]["how"]) == (3, "majority")


def test_two_labellers_any_disagreement_needs_the_adjudicator() -> None:
    two = ratings({"ann": {("q", "a"): 3, ("q", "b"): 2}, "bob": {("q", "a"): 0, ("q", "b"): 2}})
    got = by_pair(decide(two, NO_ADJ, UMA))
    assert got["q", "a"]["how"] == "pending"
    assert open_pairs(two, UMA).select("query_id", "doc_id").rows() == [("q", "a")]


def test_median_rule_odd_even_and_tie_break() -> None:
    got = by_pair(decide(THREE, NO_ADJ, MEDIAN))
    assert (got["q1", "b"]["grade"], got["q1", "b"]["how"]) == (3, "median")  # 0, 3, 3
    assert got["q1", "c"]["grade"] == 1  # 0, 1, 2
    two = ratings({"ann": {("q", "a"): 3, ("q", "b"): 1}, "bob": {("q", "a"): 0, ("q", "b"): 1}})
    assert by_pair(decide(two, NO_ADJ, MEDIAN))["q", "a"]["grade"] == 0  # lower of 0 and 3
    adj = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "grade": [2], "adjudicator": ["dee"]})
    decided = by_pair(decide(two, adj, MEDIAN))["q", "a"]
    assert (decided["grade"], decided["how"], decided["by"]) == (2, "adjudicator", "dee")
    assert open_pairs(THREE, MEDIAN).height == 0


def test_open_pairs_biggest_spread_first() -> None:
    data = ratings(
        {
            "ann": {("q", "small"): 1, ("q", "big"): 3, ("q", "mid"): 2},
            "bob": {("q", "small"): 2, ("q", "big"): 0, ("q", "mid"): 0},
        }
    )
    assert open_pairs(data).get_column("doc_id").to_list() == ["big", "mid", "small"]


def test_adjudication_journal_is_durable_latest_wins_and_withdrawable(tmp_path) -> None:
    with AdjudicationWriter(tmp_path, "dee", UMA) as writer:
        writer.decide("q1", "c", 2)
        writer.decide("q1", "c", 1)
        writer.decide("q1", "z", 3)
        writer.decide("q1", "z", None)
    lines = journal_path(tmp_path, "dee").read_text().splitlines()
    assert [json.loads(x)["grade"] for x in lines] == [2, 1, 3, None]
    got = load_adjudications(tmp_path)
    assert got.select("query_id", "doc_id", "grade", "adjudicator").rows() == [
        ("q1", "c", 1, "dee")
    ]


def test_second_writer_for_the_same_adjudicator_is_refused(tmp_path) -> None:
    from goldset_tui.errors import StoreLockedError

    with AdjudicationWriter(tmp_path, "dee", UMA), pytest.raises(StoreLockedError):
        AdjudicationWriter(tmp_path, "dee", UMA)


def test_assignment_overlap_share_and_single_coverage() -> None:
    queries = [f"q{i}" for i in range(100)]
    team = ["ann", "bob", "cy"]
    shared = overlap_query_ids(queries, 0.2, seed=4)
    assert len(shared) == 20
    per = {name: assigned_query_ids(queries, name, team, 0.2, 4) for name in team}
    coverage = Counter(q for qs in per.values() for q in qs)
    assert {q for q, c in coverage.items() if c == 3} == shared
    assert all(coverage[q] == 1 for q in queries if q not in shared)
    assert set(coverage) == set(queries)
    rest = [len(qs) - 20 for qs in per.values()]
    assert max(rest) - min(rest) <= 1
    # Input order is kept; the split does not depend on it.
    assert per["ann"] == [q for q in queries if q in set(per["ann"])]
    assert set(assigned_query_ids(list(reversed(queries)), "ann", team, 0.2, 4)) == set(per["ann"])
    assert set(assigned_query_ids(queries, "ann", team, 0.2, 5)) != set(per["ann"])


def test_assignment_rejects_unknown_labeller_and_bad_share() -> None:
    with pytest.raises(ValueError):
        assigned_query_ids(["q"], "zed", ["ann"], 0.2, 1)
    with pytest.raises(ValueError):
        overlap_query_ids(["q"], 1.5, 1)


def test_repeat_pairs_seeded_share() -> None:
    judged = [("q", f"d{i}") for i in range(200)]
    chosen = repeat_pairs(judged, "ann", 0.02, seed=1)
    assert len(chosen) == 4 and set(chosen) <= set(judged)
    assert repeat_pairs(list(reversed(judged)), "ann", 0.02, seed=1) == chosen
    assert repeat_pairs(judged, "bob", 0.02, seed=1) != chosen
    assert len(repeat_pairs(judged[:3], "ann", 0.02, seed=1)) == 1
    assert repeat_pairs(judged, "ann", 0.0, seed=1) == []


def test_self_consistency_compares_repeat_with_first_judgment() -> None:
    rows = [
        # labeller, query, doc, grade, kind, seq
        ("ann", "q", "a", 3, "judge", 1),
        ("ann", "q", "b", 0, "judge", 2),
        ("ann", "q", "c", 2, "judge", 3),
        ("ann", "q", "a", 3, "repeat", 4),
        ("ann", "q", "b", 1, "repeat", 5),
        ("ann", "q", "c", 2, "repeat", 6),
    ]
    frame = pl.DataFrame(
        rows, schema=["labeller", "query_id", "doc_id", "grade", "kind", "seq"], orient="row"
    )
    frame = frame.with_columns(time=pl.lit("2026-01-01T00:00:00Z"))
    (ann,) = self_consistency(frame, GradeScale(), buckets=3)
    assert ann["n"] == 3
    assert ann["agreement"] == pytest.approx(2 / 3)
    assert ann["mean_shift"] == pytest.approx(1 / 3)
    assert ann["agreement_by_time"] == [1.0, 0.0, 1.0]
    from sklearn.metrics import cohen_kappa_score

    assert ann["kappa_quadratic"] == pytest.approx(
        cohen_kappa_score([3, 0, 2], [3, 1, 2], labels=[0, 1, 2, 3], weights="quadratic")
    )
