"""Intervals against statsmodels and the worked examples' hand arithmetic
(docs/background.md#worked-examples)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint

from goldset_tui.eval.intervals import (
    bootstrap_mean_ci,
    mean_interval,
    method_for,
    proportion_se,
    score_interval,
    standard_error,
    student_t,
    t_value,
    wald,
    wilson,
    wilson_cc,
    z_value,
)
from goldset_tui.eval.t_distribution import t_cdf, t_quantile


def test_two_retrievers_negation_row_wald_and_wilson() -> None:
    # n = 18, 8 hits -> p = 0.44, se = sqrt(0.44 * 0.56 / 18) = 0.117, interval 0.21-0.67.
    assert proportion_se(8, 18) == pytest.approx(0.117, abs=5e-4)
    lo, hi = wald(8, 18)
    assert (round(lo, 2), round(hi, 2)) == (0.21, 0.67)
    # Wilson is pulled toward 0.5 and is narrower here: 0.246 - 0.663 (statsmodels agrees below).
    wlo, whi = wilson(8, 18)
    assert (round(wlo, 3), round(whi, 3)) == (0.246, 0.663)
    assert (wlo, whi) == pytest.approx(
        proportion_confint(8, 18, alpha=0.05, method="wilson"), abs=1e-12
    )


def test_sampled_log_standard_errors() -> None:
    # p = 0.7 -> se 0.092 at n = 25, 0.036 at n = 160.
    assert math.sqrt(0.7 * 0.3 / 25) == pytest.approx(0.092, abs=5e-4)
    assert proportion_se(112, 160) == pytest.approx(0.036, abs=5e-4)


def test_paraphrase_row_se_near_0048() -> None:
    # n = 96 gives a standard error near 0.048 (BM25 65 of 96).
    assert proportion_se(65, 96) == pytest.approx(0.048, abs=1e-3)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=1, max_value=2000).flatmap(
        lambda n: st.tuples(st.integers(0, n), st.just(n))
    )
)
def test_wilson_matches_statsmodels(counts: tuple[int, int]) -> None:
    hits, n = counts
    ref = proportion_confint(hits, n, alpha=0.05, method="wilson")
    assert wilson(hits, n) == pytest.approx(ref, abs=1e-9)
    # statsmodels clips the normal interval to [0, 1]; ours keeps the raw hand arithmetic.
    clipped = tuple(min(1.0, max(0.0, x)) for x in wald(hits, n))
    assert clipped == pytest.approx(
        proportion_confint(hits, n, alpha=0.05, method="normal"), abs=1e-9
    )


def test_wilson_other_confidence_and_edges() -> None:
    assert wilson(3, 10, 0.9) == pytest.approx(
        proportion_confint(3, 10, alpha=0.1, method="wilson"), abs=1e-12
    )
    lo, hi = wilson(0, 5)
    assert lo == 0.0 and 0 < hi < 1
    assert all(math.isnan(x) for x in wilson(0, 0))
    with pytest.raises(ValueError):
        wilson(6, 5)
    assert z_value() == pytest.approx(1.959964, abs=1e-6)


def test_standard_error_matches_numpy() -> None:
    values = [0.1, 0.5, 0.25, 0.9, 0.0, 0.33]
    assert standard_error(values) == pytest.approx(np.std(values, ddof=1) / math.sqrt(len(values)))


def test_bootstrap_is_seeded_and_covers_the_mean() -> None:
    rng = np.random.default_rng(7)
    values = rng.beta(2, 5, size=300).tolist()
    a = bootstrap_mean_ci(values, seed=1)
    assert a == bootstrap_mean_ci(values, seed=1)
    assert a != bootstrap_mean_ci(values, seed=2)
    mean = float(np.mean(values))
    assert a[0] < mean < a[1]
    # Same width as the normal interval from numpy's standard error, to within bootstrap noise.
    se = np.std(values, ddof=1) / math.sqrt(len(values))
    assert a[1] - a[0] == pytest.approx(2 * 1.96 * se, rel=0.15)
    # Independent percentile bootstrap with numpy: the ends agree to within resampling noise.
    idx = rng.integers(0, len(values), size=(4000, len(values)))
    means = np.asarray(values)[idx].mean(axis=1)
    ref = np.quantile(means, [0.025, 0.975])
    assert a == pytest.approx(tuple(ref), abs=0.01)


def test_mean_interval_picks_the_method() -> None:
    assert mean_interval([1, 0, 1, 1], binary=True) == wilson_cc(3, 4)
    assert mean_interval([0.2, 0.4, 0.9], binary=False) == score_interval([0.2, 0.4, 0.9])
    # The method follows what the measure is, never the values: graded values that all sit at
    # 0 or 1 still get the graded interval, and a count gets the plain t interval.
    assert method_for(binary=False) == "score-t"
    assert method_for(binary=True) == "wilson-cc"
    assert method_for(binary=False, bounded=False) == "student-t"
    assert mean_interval([0.0, 1.0, 1.0], binary=False) == score_interval([0.0, 1.0, 1.0])
    assert mean_interval([0.0, 1.0, 1.0], binary=False) != wilson(2, 3)
    assert mean_interval([3.0, 0.0, 7.0], binary=False, bounded=False) == student_t([3.0, 0.0, 7.0])


def test_t_quantile_and_cdf_match_scipy() -> None:
    from scipy import stats

    for df in (1, 2, 3, 6, 17, 39, 120, 2.5):
        for p in (0.5005, 0.6, 0.9, 0.95, 0.975, 0.995, 0.9995, 0.025):
            assert t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-9, abs=1e-9)
            assert t_cdf(stats.t.ppf(p, df), df) == pytest.approx(p, abs=1e-10)
    # The 95% two-sided values of a t table, at the worked examples' stratum sizes.
    assert t_value(7) == pytest.approx(2.447, abs=5e-4)
    assert t_value(18) == pytest.approx(2.110, abs=5e-4)


def test_student_t_matches_scipy() -> None:
    from scipy import stats

    values = [0.1, 0.5, 0.25, 0.9, 0.0, 0.33, 0.61]
    ref = stats.t.interval(0.95, len(values) - 1, loc=np.mean(values), scale=stats.sem(values))
    assert student_t(values) == pytest.approx(ref, abs=1e-9)


def test_score_interval_by_hand() -> None:
    # Written out: m = mean, s^2 = var(ddof=1), phi = s^2 / (m(1 - m)) shrunk toward 1 by
    # 2 x (share of values at 0 or 1) = 2 x 3/7 pseudo-observations against the 4 values strictly
    # inside (0, 1), n_eff = n / phi, then Wilson's formula with t(n - 1) for z.
    from scipy import stats

    values = [0.0, 0.0, 0.0, 0.5, 0.5, 0.6, 0.5]
    n, m, var = len(values), float(np.mean(values)), float(np.var(values, ddof=1))
    c, inside = 2 * 3 / 7, 4
    phi = (inside * var / (m * (1 - m)) + c) / (inside + c)
    ne = n / phi
    t = stats.t.ppf(0.975, n - 1)
    centre = (m + t**2 / (2 * ne)) / (1 + t**2 / ne)
    half = t / (1 + t**2 / ne) * math.sqrt(m * (1 - m) / ne + t**2 / (4 * ne**2))
    assert score_interval(values) == pytest.approx((centre - half, centre + half), abs=1e-9)
    # At a mean of 0 (a stratum of misses) it keeps a width, as Wilson does.
    lo, hi = score_interval([0.0] * 7)
    assert lo == 0.0 and hi > 0.3
    assert all(math.isnan(x) for x in score_interval([0.5]))


def test_a_stratum_of_mostly_zeros_does_not_rest_on_its_two_nonzero_values() -> None:
    # 38 zeros and two close values: phi = 0.054; shrunk by 1.9 pseudo-observations against all
    # 40 values it stays at 0.097, n_eff 412 and the upper end 0.015, under a true mean of 0.025
    # for 95% zeros, else uniform. Against the 2 values inside (0, 1): (2 x 0.054 + 1.9) / 3.9.
    values = [0.0] * 38 + [0.05, 0.06]
    n, m, var = len(values), float(np.mean(values)), float(np.var(values, ddof=1))
    c = 2 * 38 / 40
    phi = (2 * var / (m * (1 - m)) + c) / (2 + c)
    from scipy import stats

    ne, t = n / phi, stats.t.ppf(0.975, n - 1)
    centre = (m + t**2 / (2 * ne)) / (1 + t**2 / ne)
    half = t / (1 + t**2 / ne) * math.sqrt(m * (1 - m) / ne + t**2 / (4 * ne**2))
    lo, hi = score_interval(values)
    assert (lo, hi) == pytest.approx((centre - half, centre + half), abs=1e-12)
    assert hi > 0.025
