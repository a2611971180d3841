"""How deep to sample each stratum: seed 000's arithmetic, done once at the start.

For a stratum of n queries with a binary per-query metric whose true rate is p, the standard error
of the stratum's mean is sqrt(p (1 - p) / n) and the 95% half-width is z * se with z = 1.96 (the
0.975 normal quantile). Seed 000: n = 25 at p = 0.7 gives se 0.092 and about +-18 points; the
160-query set gives se 0.036 and about +-7. The band shrinks with the square root of n, so halving
it costs four times the queries. One query moves a stratum's rate by 1 / n (ten queries: ten points).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from goldset_tui.eval.intervals import z_value

Z95 = z_value(0.95)  # 1.95996..., the report's z
DEFAULT_RATE = 0.7  # seed 000's assumed per-query recall


def standard_error(n: int, rate: float = DEFAULT_RATE) -> float:
    if n <= 0:
        return math.inf
    return math.sqrt(rate * (1.0 - rate) / n)


def half_width(n: int, rate: float = DEFAULT_RATE, z: float = Z95) -> float:
    return z * standard_error(n, rate)


def size_for_half_width(target: float, rate: float = DEFAULT_RATE, z: float = Z95) -> int:
    """The smallest n whose half-width at ``rate`` is at most ``target``."""
    if not target > 0:
        raise ValueError("the half-width must be positive")
    n = math.ceil(z * z * rate * (1.0 - rate) / (target * target) - 1e-9)
    return max(n, 1)


def one_query_step(n: int) -> float:
    """The smallest change one query makes to a binary rate over n queries."""
    return math.inf if n <= 0 else 1.0 / n


@dataclass(frozen=True)
class PlanRow:
    stratum: str
    n: int
    se: float
    half_width: float
    step: float
    needed: int | None  # size for the requested half-width, if one was asked for


def plan_rows(
    sizes: dict[str, int], rate: float = DEFAULT_RATE, want: float | None = None
) -> list[PlanRow]:
    """One row per stratum and a last row ``(all)`` for the whole set."""
    if not 0.0 <= rate <= 1.0:
        raise ValueError("the assumed rate must lie between 0 and 1")
    needed = size_for_half_width(want, rate) if want else None
    rows = [
        PlanRow(s, n, standard_error(n, rate), half_width(n, rate), one_query_step(n), needed)
        for s, n in sizes.items()
    ]
    total = sum(sizes.values())
    rows.append(
        PlanRow(
            "(all)",
            total,
            standard_error(total, rate),
            half_width(total, rate),
            one_query_step(total),
            needed,
        )
    )
    return rows
