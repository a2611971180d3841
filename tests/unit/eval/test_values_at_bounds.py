"""A value one rounding step from 0 or 1 is at the bound: a perfect ranking's nDCG summed in
another order comes out 0.9999999999999998, and counted "inside (0, 1)" it moved a small
stratum's score interval by several points (the interval shrinks toward the bound by the share
of values sitting at it)."""

from __future__ import annotations

import polars as pl

from goldset_tui.decisions.cells import stratum_stats
from goldset_tui.eval.intervals import mean_interval, score_interval, summary

ONE_BELOW = 1.0 - 2.220446049250313e-16  # the float just below 1
EXACT = [1.0, 1.0, 1.0, 1.0, 0.63, 0.5, 1.0]
ROUNDED = [ONE_BELOW if v == 1.0 else v for v in EXACT]


def test_the_share_at_the_bounds_counts_a_value_one_rounding_step_away() -> None:
    assert summary(ROUNDED)[3] == summary(EXACT)[3] == 5 / 7
    assert summary([2e-17, 0.5])[3] == 0.5


def test_the_score_interval_does_not_move_with_rounding() -> None:
    exact, rounded = score_interval(EXACT), score_interval(ROUNDED)
    assert abs(exact[0] - rounded[0]) < 1e-12 and abs(exact[1] - rounded[1]) < 1e-12
    graded = mean_interval(ROUNDED, binary=False, bounded=True)
    assert abs(graded[0] - exact[0]) < 1e-12


def test_the_decision_blocks_cells_count_alike() -> None:
    frame = pl.DataFrame({"stratum": ["a"] * 7, "value": ROUNDED})
    assert stratum_stats(frame)["a"][3] == 5 / 7
