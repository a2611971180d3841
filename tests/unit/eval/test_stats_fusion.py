"""Paired statistics against scipy/statsmodels, fusion against its published formulas."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldset_tui.eval.fusion import combmnz, combsum, fuse, rrf
from goldset_tui.eval.stats import mcnemar_exact, paired_comparison

A = [0.62, 0.10, 0.55, 0.80, 0.33, 0.47, 0.91, 0.05, 0.70, 0.28, 0.66, 0.40]
B = [0.50, 0.20, 0.30, 0.85, 0.10, 0.47, 0.60, 0.00, 0.45, 0.31, 0.50, 0.12]


def test_randomization_p_matches_scipy_exact_permutation_test():
    from scipy.stats import permutation_test

    d = np.array(A) - np.array(B)
    # permutation_type="samples" with one sample flips signs: the exact paired test (2^12 cases).
    exact = permutation_test(
        (d,), np.mean, permutation_type="samples", n_resamples=np.inf, alternative="two-sided"
    ).pvalue
    samples = 20_000
    r = paired_comparison(A, B, seed=3, samples=samples)
    tolerance = 4 * math.sqrt(exact * (1 - exact) / samples) + 2 / samples
    assert r.p_value == pytest.approx(exact, abs=tolerance)
    assert 0 < exact < 0.2  # a case where the answer matters


def test_bootstrap_interval_matches_scipy_percentile_bootstrap():
    from scipy.stats import bootstrap

    d = np.array(A) - np.array(B)
    ref = bootstrap(
        (d,), np.mean, method="percentile", n_resamples=20_000, random_state=1
    ).confidence_interval
    r = paired_comparison(A, B, seed=5, samples=20_000)
    assert r.ci95[0] == pytest.approx(ref.low, abs=0.01)
    assert r.ci95[1] == pytest.approx(ref.high, abs=0.01)
    assert r.ci95[0] < r.mean_diff < r.ci95[1]


def test_counts_and_means():
    r = paired_comparison(A, B, seed=0, samples=100)
    d = np.array(A) - np.array(B)
    assert (r.wins, r.losses, r.ties) == (
        int((d > 0).sum()),
        int((d < 0).sum()),
        int((d == 0).sum()),
    )
    assert r.mean_diff == pytest.approx(d.mean())
    assert r.discordant is None


def test_binary_measure_gets_discordant_counts_and_mcnemar_like_statsmodels():
    from statsmodels.stats.contingency_tables import mcnemar

    a = [1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 1, 1]
    b = [1, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 1]
    r = paired_comparison(a, b, seed=0, samples=500, binary=True)
    assert r.discordant == (5, 1)
    table = [[4, 5], [1, 2]]
    assert r.mcnemar_p == pytest.approx(mcnemar(table, exact=True).pvalue)
    for only_a, only_b in [(0, 0), (3, 0), (7, 9), (20, 4)]:
        expected = (
            1.0 if only_a + only_b == 0 else mcnemar([[0, only_a], [only_b, 0]], exact=True).pvalue
        )
        assert mcnemar_exact(only_a, only_b) == pytest.approx(expected)


def test_graded_values_at_0_or_1_get_no_mcnemar():
    # nDCG@10 that happens to be 0 or 1 on every query is still graded: McNemar's test is for a
    # measure that is 0 or 1 by definition (the old code guessed from the values and added it).
    a = [1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 1, 1]
    b = [1, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 1]
    r = paired_comparison(a, b, seed=0, samples=500)
    assert r.discordant is None and r.mcnemar_p is None
    with pytest.raises(ValueError, match="other than 0 and 1"):
        paired_comparison([0.5, 1.0], [0.0, 1.0], seed=0, samples=10, binary=True)


def test_seeded_and_reproducible():
    one = paired_comparison(A, B, seed=11, samples=3000)
    assert paired_comparison(A, B, seed=11, samples=3000) == one
    assert paired_comparison(A, B, seed=12, samples=3000).ci95 != one.ci95


def test_bad_pairs():
    with pytest.raises(ValueError):
        paired_comparison([1.0, 2.0], [1.0])
    with pytest.raises(ValueError):
        paired_comparison([], [])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=40), st.integers(0, 2**31))
def test_a_run_against_itself(values, seed):
    r = paired_comparison(values, values, seed=seed, samples=200)
    assert r.mean_diff == 0.0 and r.ci95 == (0.0, 0.0) and r.p_value == 1.0
    assert (r.wins, r.losses, r.ties) == (0, 0, len(values))


# --- fusion -------------------------------------------------------------------------------


def run_frame(rows):
    return pl.DataFrame(
        rows, schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}, orient="row"
    )


X = run_frame([("q", "a", 3.0), ("q", "b", 2.0), ("q", "c", 1.0), ("r", "z", 1.0)])
Y = run_frame([("q", "c", 9.0), ("q", "a", 5.0), ("q", "d", 5.0), ("r", "y", 2.0)])


def test_rrf_is_cormack_formula():
    fused = rrf({"x": X, "y": Y})
    got = {(q, d): s for q, d, s, _ in fused.rows()}
    # Y ranks a and d (tied 5.0) with the larger doc id first: d 2nd, a 3rd.
    assert got[("q", "a")] == pytest.approx(1 / 61 + 1 / 63)
    assert got[("q", "c")] == pytest.approx(1 / 63 + 1 / 61)
    assert got[("q", "b")] == pytest.approx(1 / 62)
    assert got[("q", "d")] == pytest.approx(1 / 62)
    # a and c tie: trec_eval order puts c (larger id) first; b and d tie: d first.
    assert fused.filter(pl.col("query_id") == "q").get_column("doc_id").to_list() == [
        "c",
        "a",
        "d",
        "b",
    ]
    assert rrf([X, Y], k=0, depth=1).filter(pl.col("query_id") == "q").get_column(
        "score"
    ).to_list() == [1.0, 1.0]


def test_combsum_and_combmnz_are_fox_and_shaw_on_min_max_scores():
    s = {(q, d): v for q, d, v, _ in combsum([X, Y]).rows()}
    # X on q: a 1, b .5, c 0; Y on q: c 1, a 0, d 0. Query r: a single document normalises to 1.
    assert s == pytest.approx(
        {
            ("q", "a"): 1.0,
            ("q", "b"): 0.5,
            ("q", "c"): 1.0,
            ("q", "d"): 0.0,
            ("r", "z"): 1.0,
            ("r", "y"): 1.0,
        }
    )
    m = {(q, d): v for q, d, v, _ in combmnz([X, Y]).rows()}
    assert m[("q", "a")] == pytest.approx(2.0) and m[("q", "b")] == pytest.approx(0.5)
    assert m[("q", "c")] == pytest.approx(2.0)


runs = st.lists(
    st.tuples(
        st.sampled_from(["q1", "q2"]),
        st.text("abcdefgh", min_size=1, max_size=3),
        st.sampled_from([0.0, 0.5, 1.0, 2.0]),
    ),
    min_size=1,
    max_size=30,
    unique_by=lambda t: (t[0], t[1]),
)


@settings(max_examples=40, deadline=None)
@given(runs, st.sampled_from(["rrf", "combsum", "combmnz"]))
def test_fusing_a_run_with_itself_keeps_its_order(rows, method):
    from goldset_tui.io.trec import rank_run

    run = run_frame(rows)
    original = rank_run(run).select("query_id", "doc_id").rows()
    assert fuse([run, run], method).select("query_id", "doc_id").rows() == original
