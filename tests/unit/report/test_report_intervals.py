"""Intervals against statsmodels and the seeds' worked arithmetic."""

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
    proportion_se,
    standard_error,
    wald,
    wilson,
    z_value,
)


def test_seed_004_negation_row_wald_and_wilson() -> None:
    # Seed 004: n = 18, 8 hits -> p = 0.44, se = sqrt(0.44 * 0.56 / 18) = 0.117, interval 0.21-0.67.
    assert proportion_se(8, 18) == pytest.approx(0.117, abs=5e-4)
    lo, hi = wald(8, 18)
    assert (round(lo, 2), round(hi, 2)) == (0.21, 0.67)
    # Wilson is pulled toward 0.5 and is narrower here: 0.246 - 0.663 (statsmodels agrees below).
    wlo, whi = wilson(8, 18)
    assert (round(wlo, 3), round(whi, 3)) == (0.246, 0.663)
    assert (wlo, whi) == pytest.approx(
        proportion_confint(8, 18, alpha=0.05, method="wilson"), abs=1e-12
    )


def test_seed_000_standard_errors() -> None:
    # Seed 000: p = 0.7 -> se 0.092 at n = 25, 0.036 at n = 160.
    assert math.sqrt(0.7 * 0.3 / 25) == pytest.approx(0.092, abs=5e-4)
    assert proportion_se(112, 160) == pytest.approx(0.036, abs=5e-4)


def test_paraphrase_row_se_near_0048() -> None:
    # Seed 004: n = 96 gives a standard error near 0.048 (BM25 65 of 96).
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
    # statsmodels clips the normal interval to [0, 1]; ours keeps the seed's raw arithmetic.
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
    assert mean_interval([1, 0, 1, 1], binary=True) == wilson(3, 4)
    assert mean_interval([0.2, 0.4, 0.9], binary=False, seed=3) == bootstrap_mean_ci(
        [0.2, 0.4, 0.9], seed=3
    )
