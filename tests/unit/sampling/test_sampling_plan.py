"""The sample-size arithmetic, checked against statsmodels and the worked example's own numbers
(docs/background.md#the-sampled-log)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_confint, samplesize_confint_proportion

from goldset_tui.cli import main
from goldset_tui.sampling.plan import (
    half_width,
    one_query_step,
    plan_rows,
    size_for_half_width,
    standard_error,
)


def test_sampled_log_standard_errors_and_bands() -> None:
    assert round(standard_error(25, 0.7), 3) == 0.092  # "At n = 25 that is 0.092"
    assert round(standard_error(160, 0.7), 3) == 0.036  # "a standard error of 0.036"
    assert round(half_width(25, 0.7) * 100) == 18  # "roughly +-18 points"
    assert round(half_width(160, 0.7) * 100) == 7  # "about +-7 points"
    # The set is 6.4 times the stratum; the band narrows by sqrt(6.4), about two and a half.
    assert half_width(25) / half_width(160) == pytest.approx((160 / 25) ** 0.5)


def test_two_retrievers_negation_row() -> None:
    assert round(standard_error(18, 0.44), 3) == 0.117  # sqrt(0.44 * 0.56 / 18)


@pytest.mark.parametrize("n", [10, 25, 40, 160])
def test_half_width_matches_statsmodels_normal_interval(n: int) -> None:
    lo, hi = proportion_confint(0.7 * n, n, alpha=0.05, method="normal")
    assert half_width(n, 0.7) == pytest.approx((hi - lo) / 2, rel=1e-9)


@pytest.mark.parametrize("target", [0.18, 0.1, 0.05, 0.02])
def test_size_for_a_half_width(target: float) -> None:
    n = size_for_half_width(target, 0.7)
    assert half_width(n, 0.7) <= target < half_width(n - 1, 0.7)
    assert n == pytest.approx(samplesize_confint_proportion(0.7, target, alpha=0.05), abs=1)


def test_halving_the_band_costs_four_times_the_queries() -> None:
    assert size_for_half_width(0.05) / size_for_half_width(0.10) == pytest.approx(4, rel=0.01)


def test_one_query_step() -> None:
    assert one_query_step(10) == pytest.approx(0.10)  # ten queries, ten points
    assert round(one_query_step(15) * 100, 1) == 6.7  # fifteen: 6.7 points


def test_plan_rows_end_with_the_whole_set() -> None:
    rows = plan_rows({"howto": 40, "migration": 15}, 0.7, 0.1)
    assert [r.stratum for r in rows] == ["howto", "migration", "(all)"]
    assert rows[-1].n == 55 and rows[-1].needed == size_for_half_width(0.1)


def test_plan_command_prints_the_sampled_log_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "query,count,stratum\n" + "".join(f"q{i},1,{'ab'[i % 2]}\n" for i in range(400)),
        encoding="utf-8",
    )
    assert (
        main(["sample", str(labels), "--plan", "--targets", "a=25,b=135", "--half-width", "0.1"])
        == 0
    )
    out = capsys.readouterr().out
    a_row = next(line for line in out.splitlines() if line.startswith("a "))
    all_row = next(line for line in out.splitlines() if line.startswith("(all)"))
    # Each stratum has N = 200 distinct queries, so the finite-population correction applies:
    # a: sqrt(0.21 / 25 * (1 - 25/200)) = 0.0857, band 1.96 * 0.0857 = 16.8 points (18.0 without).
    assert "0.086" in a_row and "16.8 pts" in a_row and "4.0 pts" in a_row
    # The set: 25/160 of it from a, 135/160 from b (N = 200 each):
    # var = (25/160)^2 0.21/25 (1 - 25/200) + (135/160)^2 0.21/135 (1 - 135/200) = 0.000551
    var = (25 / 160) ** 2 * 0.21 / 25 * 0.875 + (135 / 160) ** 2 * 0.21 / 135 * 0.325
    assert f"{var**0.5:.3f}" == "0.023" and "0.023" in all_row and "160" in all_row
    assert f"{1.96 * var**0.5 * 100:.1f} pts" in all_row


# --- the weighted headline, the finite population, the paired comparison ----------------------
SAMPLED_LOG_TARGETS = {
    "howto": 40,
    "navigational": 30,
    "error": 30,
    "entity_attr": 25,
    "migration": 15,
    "tail": 20,
}
SAMPLED_LOG_SHARES = {
    "howto": 0.31,
    "navigational": 0.22,
    "error": 0.18,
    "entity_attr": 0.15,
    "migration": 0.06,
    "tail": 0.08,
}


def test_weighted_headline_standard_error_by_hand_and_by_simulation() -> None:
    rows = {r.stratum: r for r in plan_rows(SAMPLED_LOG_TARGETS, 0.7, shares=SAMPLED_LOG_SHARES)}
    # sum W^2 p(1-p)/n, written out: 0.31^2 .21/40 + 0.22^2 .21/30 + 0.18^2 .21/30
    #   + 0.15^2 .21/25 + 0.06^2 .21/15 + 0.08^2 .21/20
    by_hand = (
        0.0961 * 0.21 / 40
        + 0.0484 * 0.21 / 30
        + 0.0324 * 0.21 / 30
        + 0.0225 * 0.21 / 25
        + 0.0036 * 0.21 / 15
        + 0.0064 * 0.21 / 20
    ) ** 0.5
    assert rows["(weighted)"].se == pytest.approx(by_hand, rel=1e-12)
    # Not the simple-random-sample 0.036 of the 160 queries: sampling out of proportion costs.
    assert rows["(weighted)"].se > rows["(all)"].se == pytest.approx(standard_error(160))
    assert rows["(weighted)"].n_effective == pytest.approx(0.21 / by_hand**2)
    # Independent check: draw the stratified sample's per-stratum rates many times and take the
    # spread of the traffic-weighted mean.
    rng = np.random.default_rng(0)
    means = sum(
        SAMPLED_LOG_SHARES[s] * rng.binomial(n, 0.7, size=200_000) / n
        for s, n in SAMPLED_LOG_TARGETS.items()
    )
    assert float(np.std(means)) == pytest.approx(by_hand, rel=0.01)


def test_finite_population_correction_by_hand_and_by_simulation() -> None:
    # A stratum of N = 100 distinct queries, 70 of them hits, sampled 40 deep without replacement.
    se = standard_error(40, 0.7, population=100)
    assert se == pytest.approx((0.21 / 40 * (1 - 40 / 100)) ** 0.5)
    rng = np.random.default_rng(1)
    hits = rng.hypergeometric(70, 30, 40, size=200_000) / 40
    # The exact variance has S^2 = N/(N-1) p(1-p); 1 - n/N with p(1-p) is 0.5% off at N = 100.
    assert float(np.std(hits)) == pytest.approx(se * (100 / 99) ** 0.5, rel=0.01)
    assert standard_error(40, 0.7, population=40) == 0.0  # taken in full: no sampling error
    rows = {r.stratum: r for r in plan_rows({"a": 40}, 0.7, populations={"a": 100})}
    assert rows["a"].se == pytest.approx(se) and rows["a"].population == 100


@pytest.mark.parametrize(("n", "rho"), [(25, 0.5), (160, 0.0), (160, 0.6), (54, 0.3)])
def test_paired_detectable_difference_matches_statsmodels(n: int, rho: float) -> None:
    (row, _) = plan_rows({"s": n}, 0.7, rho=rho)
    # One-sample (paired) z-test: statsmodels solves for the standardised effect d; the difference
    # is d times the standard deviation of a per-query difference, sqrt(2 p (1-p) (1 - rho)).
    d = NormalIndPower().solve_power(nobs1=n, alpha=0.05, power=0.8, ratio=0)
    assert row.mde_paired == pytest.approx(d * (2 * 0.21 * (1 - rho)) ** 0.5, rel=1e-4)
    assert row.mde_unpaired == pytest.approx(d * (2 * 0.21) ** 0.5, rel=1e-4)
    # The unpaired band overstates the noise of a comparison on the same queries.
    assert rho == 0 or row.mde_paired < row.mde_unpaired


def test_plan_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    labels = tmp_path / "labels.csv"
    labels.write_text(
        "query,count,stratum\n" + "".join(f"q{i},{1 + i % 3},{'ab'[i % 2]}\n" for i in range(400)),
        encoding="utf-8",
    )
    args = ["sample", str(labels), "--plan", "--targets", "a=25,b=50", "--format", "json"]
    assert main([*args, "--rho", "0.4"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rho"] == 0.4 and [s["stratum"] for s in data["strata"]] == ["a", "b"]
    a = data["strata"][0]
    assert a["population"] == 200 and a["se"] == pytest.approx(standard_error(25, 0.7, 200))
    # Shares from the log: a holds counts 1, 3, 2, 1, 3, 2, ... over 200 queries.
    counts = [1 + i % 3 for i in range(400)]
    share_a = sum(c for i, c in enumerate(counts) if i % 2 == 0) / sum(counts)
    assert data["weighted"]["share"] == pytest.approx(1.0) and a["share"] == pytest.approx(share_a)
    assert main([*args, "--rho", "1"]) == 2


def test_size_for_a_half_width_carries_the_finite_population_correction() -> None:
    # By hand (Cochran 4.2): n0 = 1.96^2 x 0.7 x 0.3 / 0.1^2 = 80.67; of a stratum of N = 100
    # distinct queries, n = n0 N / (N + n0) = 80.67 x 100 / 180.67 = 44.65, so 45. Check: at 45,
    # 1.96 sqrt(0.21 / 45 x 55/100) = 0.0993 <= 0.10; at 44, 1.96 sqrt(0.21 / 44 x 56/100) = 0.1013.
    assert size_for_half_width(0.1, 0.7) == 81
    assert size_for_half_width(0.1, 0.7, population=100) == 45
    assert half_width(45, 0.7, population=100) <= 0.1 < half_width(44, 0.7, population=100)
    # A stratum smaller than n0 needs at most all of it (a census has no sampling error).
    assert size_for_half_width(0.01, 0.7, population=30) == 30
    # Each plan row asks for its own stratum's N, as its band does (before, every row said 81).
    rows = plan_rows({"a": 20, "b": 20}, 0.7, 0.1, populations={"a": 100, "b": 10_000})
    assert [r.needed for r in rows[:2]] == [45, size_for_half_width(0.1, 0.7, population=10_000)]
    assert rows[1].needed == 81  # 80.67 x 10000 / 10080.67 = 80.02: the correction barely matters
