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


def _difference_interval_by_hand(d: np.ndarray) -> tuple[float, float]:
    """docs/report.md's difference interval written out with numpy and scipy: u = (d + 1) / 2,
    dispersion phi = s^2 / (m (1 - m)) shrunk toward 1 by one pseudo-query in proportion to the
    share of u at 0, 1/2 or 1 (all of it when s = 0), Wilson's formula at m with n / phi queries
    and t(n - 1) for 1.96, carried back by 2u - 1."""
    from scipy.stats import t

    u = (d + 1) / 2
    n, m, var = len(u), u.mean(), u.var(ddof=1)
    at = 1.0 if var == 0 else np.isin(u, (0.0, 0.5, 1.0)).mean()
    phi0 = var / (m * (1 - m)) if 0 < m < 1 else 1.0
    n_eff = n / ((n * phi0 + at) / (n + at))
    q = t.ppf(0.975, n - 1)
    centre = (m + q * q / (2 * n_eff)) / (1 + q * q / n_eff)
    half = q / (1 + q * q / n_eff) * math.sqrt(m * (1 - m) / n_eff + q * q / (4 * n_eff**2))
    return max(-1.0, 2 * (centre - half) - 1), min(1.0, 2 * (centre + half) - 1)


def test_interval_is_the_difference_score_interval_written_out_by_hand():
    for a, b in [(A, B), ([1.0] * 7, [0.0] * 7), ([1, 0, 1], [0, 1, 1])]:
        r = paired_comparison(a, b, seed=5, samples=200)
        expected = _difference_interval_by_hand(np.array(a, float) - np.array(b, float))
        assert r.ci95 == pytest.approx(expected, abs=1e-9)
        assert r.ci_method == "difference-score-t"


def test_seven_of_seven_from_0_to_1_is_not_a_point_and_stays_in_range():
    # The old percentile bootstrap gave [1, 1]: every resample of seven 1s has mean 1.
    r = paired_comparison([1.0] * 7, [0.0] * 7, seed=0, samples=500, binary=True)
    lo, hi = r.ci95
    assert -1.0 <= lo < hi <= 1.0
    assert hi == 1.0 and lo < 0.5  # Wilson at 7 of 7 with t(6): 7 / (7 + 2.447^2) = 0.539 on [0, 1]
    assert lo == pytest.approx(2 * 7 / (7 + 2.4469118511449692**2) - 1, abs=1e-9)
    back = paired_comparison([0.0] * 7, [1.0] * 7, seed=0, samples=500, binary=True)
    assert back.ci95 == pytest.approx((-hi, -lo))


def test_ties_everywhere_keep_a_width_around_0():
    # The old interval was [0, 0]: seven tied queries do not show that the eighth ties.
    r = paired_comparison([0.3, 1, 0, 0.5, 0.2, 0.9, 0.7], [0.3, 1, 0, 0.5, 0.2, 0.9, 0.7])
    lo, hi = r.ci95
    assert -1.0 < lo < 0.0 < hi < 1.0 and lo == pytest.approx(-hi)
    # Ties but one query: still around the mean, and not a point.
    one = paired_comparison([0.0] * 9 + [1.0], [0.0] * 10, seed=0, samples=500)
    assert one.ci95[0] < 0.0 < 0.1 < one.ci95[1] < 1.0


def test_a_measure_with_no_known_range_gets_student_t_and_no_point():
    from scipy.stats import t

    a, b = [3.0, 5.0, 2.0, 8.0, 4.0], [1.0, 5.0, 3.0, 2.0, 1.0]
    r = paired_comparison(a, b, seed=0, samples=200, bounded=False)
    d = np.array(a) - np.array(b)
    half = t.ppf(0.975, 4) * d.std(ddof=1) / math.sqrt(5)
    assert r.ci95 == pytest.approx((d.mean() - half, d.mean() + half))
    assert r.ci_method == "student-t"
    same = paired_comparison([3.0, 5.0], [1.0, 3.0], seed=0, samples=200, bounded=False)
    assert all(math.isnan(x) for x in same.ci95)  # no range, no spread seen: no interval
    with pytest.raises(ValueError, match="outside"):
        paired_comparison(a, b, seed=0, samples=10)  # bounded by default: 8 is out of [0, 1]


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
    assert paired_comparison(A, B, seed=12, samples=3000).p_value != one.p_value


def test_bad_pairs():
    with pytest.raises(ValueError):
        paired_comparison([1.0, 2.0], [1.0])
    with pytest.raises(ValueError):
        paired_comparison([], [])


def test_a_frame_from_evaluate_is_refused_naming_the_column_to_pass():
    # docs/eval.md's notebook line passes per-query scores; the frame evaluate() returns used to
    # reach Polars and fail as "conversion from struct[3] to struct[3] failed in column 'a'".
    from goldset_tui.eval import evaluate, evaluate_wide

    qrels = pl.DataFrame(
        {"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d1"], "grade": [1, 0, 1]}
    )
    run_a = pl.DataFrame(
        {"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d1"], "score": [2.0, 1.0, 1.0]}
    )
    run_b = run_a.with_columns(pl.Series("score", [1.0, 2.0, 1.0]))
    long_a, long_b = evaluate(qrels, run_a, ["RR"]), evaluate(qrels, run_b, ["RR"])
    with pytest.raises(TypeError, match=r"one score per query.*evaluate_wide"):
        paired_comparison(long_a, long_b, seed=0, samples=10)
    column_a = evaluate_wide(qrels, run_a, ["RR"])["RR"]
    column_b = evaluate_wide(qrels, run_b, ["RR"])["RR"]
    # RR by hand: a ranks d1 first on both queries (1, 1); b ranks d2 first on q1 (1/2, 1).
    assert paired_comparison(column_a, column_b, seed=0, samples=10).mean_diff == pytest.approx(
        (0.5 + 0.0) / 2
    )


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=40), st.integers(0, 2**31))
def test_a_run_against_itself(values, seed):
    r = paired_comparison(values, values, seed=seed, samples=200)
    assert r.mean_diff == 0.0 and r.p_value == 1.0
    if len(values) >= 2:  # a width around 0, never the point [0, 0]
        assert -1.0 < r.ci95[0] < 0.0 < r.ci95[1] < 1.0
    else:
        assert all(math.isnan(x) for x in r.ci95)
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
