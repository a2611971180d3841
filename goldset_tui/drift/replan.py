"""Does the golden set still match its plan? `goldset sample plan`'s arithmetic re-run under the
new shares.

The golden set's sizes n_h were chosen for the traffic of their day: with ``--total N
--min-per-stratum M`` they are ``sampling.sample.allocate_total`` of the old log's strata (each
stratum's share of N, at least M, at most its distinct queries). Under the new log the same
call gives the sizes the plan would choose now. A stratum whose planned size moved is one the
set now samples too deep or too shallow for its traffic; the weighted headline's half-width
(``sampling.plan.weighted_row``: sum_h W_h^2 p (1 - p) / n_h) under the old and the new shares
says what that costs in precision. The set is re-drawn only by re-running `goldset sample plan`
and `goldset sample draw` on the new labels: adding a few queries to one stratum cannot make
an old draw a draw from the new log.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from goldset_tui.sampling.allocation import allocate_total
from goldset_tui.sampling.plan import (
    DEFAULT_ALPHA,
    DEFAULT_POWER,
    DEFAULT_RATE,
    DEFAULT_RHO,
    weighted_row,
)


@dataclass(frozen=True)
class Replan:
    rows: list[dict[str, Any]]  # stratum, golden, plan_old, plan_new, moved
    total: int
    min_per_stratum: int
    half_width_old: float  # the weighted headline's 95% half-width, golden sizes, old shares
    half_width_new: float  # the same under the new shares

    @property
    def matches(self) -> bool:
        return not any(r["moved"] for r in self.rows)

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "min_per_stratum": self.min_per_stratum,
            "matches": self.matches,
            "strata": self.rows,
            "half_width_old": self.half_width_old,
            "half_width_new": self.half_width_new,
        }


def replan(
    golden: Mapping[str, int],
    old_counts: pl.DataFrame,
    new_counts: pl.DataFrame,
    *,
    min_per_stratum: int,
    rate: float = DEFAULT_RATE,
) -> Replan:
    """``golden``: the golden set's queries per stratum; ``*_counts``: ``stratum_counts`` of the
    old and new labels (stratum, distinct, occurrences, share). The plan is ``allocate_total``
    with the golden set's size as ``--total``; a stratum is ``moved`` when the new plan gives it
    another size than the golden set has."""
    total = sum(golden.values())
    plan_old = allocate_total(old_counts, total, min_per_stratum)
    plan_new = allocate_total(new_counts, total, min_per_stratum)
    names = list(golden) + [s for s in plan_new if s not in golden]
    names += [s for s in plan_old if s not in names]
    rows = [
        {
            "stratum": s,
            "golden": int(golden.get(s, 0)),
            "plan_old": plan_old.get(s),
            "plan_new": plan_new.get(s),
            "moved": plan_new.get(s, 0) != int(golden.get(s, 0)),
        }
        for s in names
    ]
    sizes = {s: int(n) for s, n in golden.items()}

    def half(counts: pl.DataFrame) -> float:
        shares = dict(zip(counts["stratum"].to_list(), counts["share"].to_list(), strict=True))
        populations = dict(
            zip(counts["stratum"].to_list(), counts["distinct"].to_list(), strict=True)
        )
        row = weighted_row(
            sizes, shares, populations, rate, DEFAULT_RHO, DEFAULT_ALPHA, DEFAULT_POWER
        )
        return row.half_width

    return Replan(rows, total, min_per_stratum, half(old_counts), half(new_counts))
