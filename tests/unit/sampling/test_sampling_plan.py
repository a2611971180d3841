"""Seed 000's sample-size arithmetic, checked against statsmodels and the seed's own numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
from statsmodels.stats.proportion import proportion_confint, samplesize_confint_proportion

from goldset_tui.cli import main
from goldset_tui.sampling.plan import (
    half_width,
    one_query_step,
    plan_rows,
    size_for_half_width,
    standard_error,
)


def test_seed_000_standard_errors_and_bands() -> None:
    assert round(standard_error(25, 0.7), 3) == 0.092  # "At n = 25 that is 0.092"
    assert round(standard_error(160, 0.7), 3) == 0.036  # "a standard error of 0.036"
    assert round(half_width(25, 0.7) * 100) == 18  # "roughly +-18 points"
    assert round(half_width(160, 0.7) * 100) == 7  # "about +-7 points"
    # The set is 6.4 times the stratum; the band narrows by sqrt(6.4), about two and a half.
    assert half_width(25) / half_width(160) == pytest.approx((160 / 25) ** 0.5)


def test_seed_004_negation_row() -> None:
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
    assert one_query_step(10) == pytest.approx(0.10)  # seed 000: ten queries, ten points
    assert round(one_query_step(15) * 100, 1) == 6.7  # fifteen: 6.7 points


def test_plan_rows_end_with_the_whole_set() -> None:
    rows = plan_rows({"howto": 40, "migration": 15}, 0.7, 0.1)
    assert [r.stratum for r in rows] == ["howto", "migration", "(all)"]
    assert rows[-1].n == 55 and rows[-1].needed == size_for_half_width(0.1)


def test_plan_command_prints_the_seed_000_rows(
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
    assert "0.092" in a_row and "18.0 pts" in a_row and "4.0 pts" in a_row
    assert "0.036" in all_row and "7.1 pts" in all_row and "160" in all_row
