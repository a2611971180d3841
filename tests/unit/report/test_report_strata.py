"""The stratified table, closure, weighting and overlap against the hand arithmetic of
docs/background.md#two-retrievers-on-300-queries."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldset_tui.errors import InputError
from goldset_tui.eval.overlap import (
    failure_overlap,
    headroom_collected,
    oracle_mean,
    stratum_overlap,
)
from goldset_tui.eval.strata import (
    closure_checks,
    failing_queries,
    overall_table,
    stratum_table,
    weighted_means,
)
from goldset_tui.io.strata_and_traffic import read_strata, read_traffic
from goldset_tui.report.closure import all_ok

from .worked_examples import (
    SAMPLED_LOG_TARGETS,
    SAMPLED_LOG_TRAFFIC,
    TWO_RETRIEVERS,
    two_retrievers_frames,
)


def test_two_retrievers_table_closes_with_the_examples_numbers() -> None:
    scores, strata = two_retrievers_frames()
    table = stratum_table(scores, strata, binary=True)
    bm25 = table.filter(pl.col("system") == "bm25")
    assert bm25.get_column("stratum").to_list() == list(TWO_RETRIEVERS)
    assert bm25.get_column("n").to_list() == [54, 61, 22, 96, 49, 18]
    assert bm25.get_column("hits").to_list() == [51, 53, 9, 65, 36, 8]
    assert sum(bm25.get_column("hits")) == 222
    dense = table.filter(pl.col("system") == "dense")
    assert sum(dense.get_column("hits")) == 222
    assert dense.filter(pl.col("stratum") == "exact_identifier").get_column("hits").item() == 33
    # Only the negation row (18) is under 40 queries; misspelled (22) too.
    assert bm25.filter(pl.col("small")).get_column("stratum").to_list() == [
        "misspelled",
        "negation",
    ]
    checks = closure_checks(scores, strata, table, binary=True)
    assert all_ok(checks), [c for c in checks if not c.ok]
    by_name = {c.name: c for c in checks}
    assert by_name["n column sums to the query count"].actual == 300
    assert by_name["bm25: stratum hits sum to overall hits"].expected == 222
    overall = overall_table(scores, binary=True)
    assert overall.get_column("mean").to_list() == pytest.approx([0.74, 0.74])


def test_negation_row_interval_is_wilson_cc_for_8_of_18() -> None:
    from scipy.stats import binomtest

    scores, strata = two_retrievers_frames()
    row = stratum_table(scores, strata, binary=True).filter(
        (pl.col("system") == "bm25") & (pl.col("stratum") == "negation")
    )
    assert row.get_column("mean").item() == pytest.approx(8 / 18)
    ci = binomtest(8, 18).proportion_ci(0.95, method="wilsoncc")
    expected = (ci.low, ci.high)
    assert (row.get_column("ci_lo").item(), row.get_column("ci_hi").item()) == pytest.approx(
        expected
    )


def test_two_retrievers_overlap_and_oracle() -> None:
    scores, _ = two_retrievers_frames()
    (pair,) = failure_overlap(scores, ["bm25", "dense"])
    assert pair == {
        "a": "bm25",
        "b": "dense",
        "miss_a": 78,
        "miss_b": 78,
        "both_miss": 31,
        "either_miss": 125,
        "oracle": pytest.approx(1 - 31 / 300),
    }
    assert round(pair["oracle"], 3) == 0.897
    assert oracle_mean(scores, ["bm25", "dense"]) == pytest.approx(0.8966667)


def test_headroom_two_retrievers_about_three_quarters() -> None:
    share = headroom_collected(0.86, 0.74, 0.897)
    assert share == pytest.approx((0.86 - 0.74) / (0.897 - 0.74))
    assert round(share, 2) == 0.76
    assert headroom_collected(0.8, 0.8, 0.8) is None


def test_failing_queries_lists_every_miss_by_stratum() -> None:
    scores, strata = two_retrievers_frames()
    fails = failing_queries(scores, strata)
    assert fails.filter(pl.col("system") == "bm25").height == 78
    dense_ident = fails.filter(
        (pl.col("system") == "dense") & (pl.col("stratum") == "exact_identifier")
    )
    assert dense_ident.height == 21  # 54 - 33
    bm25_para = fails.filter((pl.col("system") == "bm25") & (pl.col("stratum") == "paraphrase"))
    assert bm25_para.height == 31  # 96 - 65, not the 31 shared misses


def _sampled_log_frames() -> tuple[pl.DataFrame, pl.DataFrame, dict[str, int]]:
    hits = {
        "howto": 30,
        "navigational": 27,
        "error": 18,
        "entity_attr": 20,
        "migration": 6,
        "tail": 9,
    }
    rows, strata, number = [], [], 0
    for s, n in SAMPLED_LOG_TARGETS.items():
        for i in range(n):
            number += 1
            rows.append(("sys", f"q{number}", 1.0 if i < hits[s] else 0.0))
            strata.append((f"q{number}", s))
    scores = pl.DataFrame(
        rows, schema={"system": pl.Utf8, "query_id": pl.Utf8, "value": pl.Float64}, orient="row"
    )
    return scores, pl.DataFrame(strata, schema=["query_id", "stratum"], orient="row"), hits


def sampled_log_weighted_mean(per_stratum_score: dict[str, float]) -> float:
    # The worked example's weighted_mean, verbatim.
    return sum(SAMPLED_LOG_TRAFFIC[s] * v for s, v in per_stratum_score.items())


def test_weighted_mean_is_the_sampled_logs_formula(tmp_path) -> None:
    scores, strata, hits = _sampled_log_frames()
    assert strata.height == 160
    traffic_file = tmp_path / "traffic.csv"
    traffic_file.write_text(
        "stratum,share\n"
        + "".join(f"{s},{round(v * 100)}%\n" for s, v in SAMPLED_LOG_TRAFFIC.items())
    )
    traffic = read_traffic(traffic_file)
    assert traffic.get_column("share").sum() == pytest.approx(1.0)
    table = stratum_table(scores, strata, binary=True)
    got = weighted_means(table, traffic)["sys"]
    expected = sampled_log_weighted_mean({s: hits[s] / n for s, n in SAMPLED_LOG_TARGETS.items()})
    assert got == pytest.approx(expected)
    unweighted = sum(hits.values()) / 160
    assert got != pytest.approx(unweighted)
    checks = closure_checks(scores, strata, table, traffic, binary=True)
    assert all_ok(checks)
    assert {"traffic shares sum to 1", "strata without a traffic share"} <= {c.name for c in checks}


def test_traffic_short_of_the_whole_fails_closure(tmp_path) -> None:
    scores, strata, _ = _sampled_log_frames()
    f = tmp_path / "traffic.csv"
    f.write_text(
        "stratum,share\nhowto,0.31\nnavigational,0.22\nerror,0.18\nentity_attr,0.15\nmigration,0.06\n"
    )
    traffic = read_traffic(f)
    checks = {
        c.name: c
        for c in closure_checks(
            scores, strata, stratum_table(scores, strata, binary=True), traffic, binary=True
        )
    }
    assert checks["traffic shares sum to 1"].residual == pytest.approx(-0.08)
    assert (
        not checks["strata without a traffic share"].ok
        and checks["strata without a traffic share"].actual == 1
    )


def test_bad_traffic_and_strata_files(tmp_path) -> None:
    f = tmp_path / "t.csv"
    f.write_text("stratum,share\na,0.5\nb,lots\n")
    with pytest.raises(InputError) as e:
        read_traffic(f)
    assert e.value.line == 3 and e.value.column == "share"
    f.write_text("stratum,share\na,0.2\nb,0.3\nc,0.1\nb,0.4\n")
    with pytest.raises(InputError, match="more than once") as e:
        read_traffic(f)
    # The repeat's line (5), not the first occurrence's (3), which the message names.
    assert (
        e.value.line == 5
        and e.value.column == "stratum"
        and "'b'" in str(e.value)
        and "first on line 3" in str(e.value)
    )
    f.write_text("stratum,share\na,-0.5\n")
    with pytest.raises(InputError, match="negative"):
        read_traffic(f)
    s = tmp_path / "s.tsv"
    s.write_text("query_id\tstratum\nq1\t\n")
    with pytest.raises(InputError) as e:
        read_strata(s)
    assert e.value.line == 2 and e.value.column == "stratum"
    s.write_text("query_id\tgroup\nq1\ta\n")
    with pytest.raises(InputError, match="missing required column 'stratum'"):
        read_strata(s)


def test_strata_reads_parquet_and_keeps_ids_as_text(tmp_path) -> None:
    p = tmp_path / "s.parquet"
    pl.DataFrame({"query_id": ["007", "008"], "stratum": ["a", "b"]}).write_parquet(p)
    assert read_strata(p).get_column("query_id").to_list() == ["007", "008"]
    c = tmp_path / "s.csv"
    c.write_text("query_id,stratum\n007,a\n007,a\n")
    assert read_strata(c).rows() == [("007", "a")]  # exact duplicates collapse


def test_non_binary_measure_uses_bootstrap_and_null_hits() -> None:
    scores = pl.DataFrame(
        {
            "system": ["s"] * 6,
            "query_id": [f"q{i}" for i in range(6)],
            "value": [0.2, 0.5, 0.0, 1.0, 0.7, 0.3],
        }
    )
    strata = pl.DataFrame(
        {"query_id": [f"q{i}" for i in range(6)], "stratum": ["a"] * 3 + ["b"] * 3}
    )
    table = stratum_table(scores, strata, binary=False)
    assert table.get_column("hits").null_count() == 2
    assert all(lo <= m <= hi for lo, m, hi in table.select("ci_lo", "mean", "ci_hi").iter_rows())
    assert all_ok(closure_checks(scores, strata, table, binary=False))


# --- properties ------------------------------------------------------------------------------

partition = st.integers(min_value=2, max_value=60).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 4), min_size=n, max_size=n),  # stratum of each query
        st.lists(st.booleans(), min_size=n, max_size=n),  # system a hits
        st.lists(st.booleans(), min_size=n, max_size=n),  # system b hits
    )
)


def _frames(assign, a, b):
    qids = [f"q{i}" for i in range(len(assign))]
    scores = pl.DataFrame(
        {
            "system": ["a"] * len(qids) + ["b"] * len(qids),
            "query_id": qids + qids,
            "value": [float(x) for x in a] + [float(x) for x in b],
        }
    )
    strata = pl.DataFrame({"query_id": qids, "stratum": [f"s{k}" for k in assign]})
    return scores, strata


@settings(max_examples=60, deadline=None)
@given(partition)
def test_closure_holds_on_any_partition(data) -> None:
    scores, strata = _frames(*data)
    table = stratum_table(scores, strata, binary=True, samples=10)
    checks = closure_checks(scores, strata, table, binary=True)
    assert all_ok(checks), [c for c in checks if not c.ok]


@settings(max_examples=60, deadline=None)
@given(partition, st.data())
def test_dropping_a_query_fails_with_the_right_residual(data, draw) -> None:
    assign, a, b = data
    scores, strata = _frames(assign, a, b)
    i = draw.draw(st.integers(0, len(assign) - 1))
    dropped = strata.filter(pl.col("query_id") != f"q{i}")
    table = stratum_table(scores, dropped, binary=True, samples=10)
    checks = {c.name: c for c in closure_checks(scores, dropped, table, binary=True)}
    assert checks["n column sums to the query count"].residual == -1
    assert checks["queries without a stratum"].residual == 1
    assert checks["a: stratum hits sum to overall hits"].residual == -int(a[i])
    assert checks["b: stratum hits sum to overall hits"].residual == -int(b[i])
    assert checks["a: stratum hits sum to overall hits"].ok == (not a[i])
    # Dropped from the strata file, the query takes no stratum name with it: nothing else fails.
    assert checks["strata without queries"].ok and checks["queries in more than one stratum"].ok


@settings(max_examples=40, deadline=None)
@given(partition, st.data())
def test_a_stratum_whose_queries_were_not_evaluated_is_named(data, draw) -> None:
    assign, a, b = data
    scores, strata = _frames(assign, a, b)
    i = draw.draw(st.integers(0, len(assign) - 1))
    evaluated = scores.filter(pl.col("query_id") != f"q{i}")  # e.g. a query with no qrels
    table = stratum_table(evaluated, strata, binary=True, samples=10)
    checks = {c.name: c for c in closure_checks(evaluated, strata, table, binary=True)}
    alone = sum(1 for k in assign if k == assign[i]) == 1
    assert checks["strata without queries"].actual == (1 if alone else 0)
    assert checks["n column sums to the query count"].ok and checks["queries without a stratum"].ok


def test_a_query_in_two_strata_breaks_closure() -> None:
    scores, strata = _frames([0, 1, 1], [True, False, True], [True, True, True])
    overlapping = pl.concat([strata, pl.DataFrame({"query_id": ["q0"], "stratum": ["s1"]})])
    table = stratum_table(scores, overlapping, binary=True, samples=10)
    checks = {c.name: c for c in closure_checks(scores, overlapping, table, binary=True)}
    assert checks["n column sums to the query count"].residual == 1
    assert checks["queries in more than one stratum"].actual == 1
    assert checks["a: stratum hits sum to overall hits"].residual == 1


def test_negation_row_shared_misses_at_most_ten() -> None:
    # BM25's 8 hits leave 10 misses of 18, dense's 7 leave 11; the queries neither system
    # rescued number at most 10, the smaller of the two.
    scores, strata = two_retrievers_frames()
    per = {
        r["stratum"]: r
        for r in stratum_overlap(scores, strata, "bm25", "dense").iter_rows(named=True)
    }
    neg = per["negation"]
    assert (neg["n"], neg["miss_a"], neg["miss_b"], neg["both_miss_bound"]) == (18, 10, 11, 10)
    assert neg["both_miss"] <= neg["both_miss_bound"]
    assert sum(r["both_miss"] for r in per.values()) == 31
    assert per["exact_identifier"]["miss_b"] == 21 and per["paraphrase"]["miss_a"] == 31


def test_fusion_headroom_is_null_without_cutoff_and_explained_outside_0_1() -> None:
    from goldset_tui.report.pipeline import fusion_headroom

    # 0.86 fused, 0.74 best, 0.897 oracle -> about three quarters, nothing to explain.
    share, note = fusion_headroom("Success@10", 0.86, 0.74, 0.897)
    assert share == pytest.approx(0.12 / 0.157) and note is None
    for metric in ("AP", "RR", "Rprec", "nDCG"):
        share, note = fusion_headroom(metric, 0.5, 0.4, 0.45)
        assert share is None and f"{metric} has no cutoff" in note
    share, note = fusion_headroom("nDCG@10", 0.5, 0.4, 0.45)
    assert share == pytest.approx(2.0) and note.startswith("above 1")
    share, note = fusion_headroom("P@10", 0.3, 0.4, 0.45)
    assert share == pytest.approx(-2.0) and note.startswith("below 0")
    share, note = fusion_headroom("Success@10", 0.8, 0.8, 0.8)
    assert share is None and "no headroom" in note
