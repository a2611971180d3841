"""How deep to sample each stratum: the sample-size arithmetic, done once at the start.

For a stratum of n queries with a binary per-query metric whose true rate is p, the standard error
of the stratum's mean is sqrt(p (1 - p) / n) and the 95% half-width is z * se with z = 1.96 (the
0.975 normal quantile). For example n = 25 at p = 0.7 gives se 0.092 and about +-18 points; the
160-query set gives se 0.036 and about +-7. The band shrinks with the square root of n, so halving
it costs four times the queries. One query moves a stratum's rate by 1 / n (ten queries: ten points).

Three refinements the plan carries, each because a number without it misleads:

- **Finite population.** A stratum of N distinct queries sampled n deep without replacement has
  its variance multiplied by the finite-population correction 1 - n / N (Cochran, Sampling
  Techniques, 3rd ed., 2.9): a stratum taken in full has no sampling error at all.
- **The weighted headline.** The traffic-weighted mean sum_h W_h p_h of a stratified sample has
  standard error sqrt(sum_h W_h^2 p (1 - p) / n_h * (1 - n_h / N_h)) (Cochran 5.9), not the
  simple-random-sample sqrt(p (1 - p) / n): strata sampled deeper than their traffic share
  (a small stratum given a floor) count for less, so the weighted band is wider. Its
  ``n_effective`` is the simple random sample with the same band.
- **Comparing two systems on the same queries.** The bands above overstate the noise of a
  comparison of two systems on the same queries, because query difficulty cancels
  (docs/background.md#paired-comparison). With per-query correlation rho between the two
  systems' scores, a per-query difference has variance 2 p (1 - p) (1 - rho), and the smallest true
  difference a two-sided test at level alpha detects with the given power is (z_{1 - alpha/2} +
  z_{power}) * sqrt(2 p (1 - p) (1 - rho) / n) (the normal approximation; a test checks it against
  statsmodels' power solver). rho = 0 is the unpaired answer.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from goldset_tui.eval.intervals import z_value

Z95 = z_value(0.95)  # 1.95996..., the report's z
DEFAULT_RATE = 0.7  # an assumed per-query recall, typical of a working retriever
DEFAULT_RHO = 0.5  # a middling correlation between two systems' per-query scores; measure yours
DEFAULT_POWER = 0.8
DEFAULT_ALPHA = 0.05


def standard_error(n: int, rate: float = DEFAULT_RATE, population: int | None = None) -> float:
    if n <= 0:
        return math.inf
    return math.sqrt(rate * (1.0 - rate) / n * fpc(n, population))


def fpc(n: int, population: int | None) -> float:
    """The finite-population correction 1 - n / N (1 when N is unknown; 0 when taken in full)."""
    if population is None or population <= 0:
        return 1.0
    return max(0.0, 1.0 - n / population)


def half_width(
    n: int, rate: float = DEFAULT_RATE, z: float = Z95, population: int | None = None
) -> float:
    return z * standard_error(n, rate, population)


def size_for_half_width(
    target: float, rate: float = DEFAULT_RATE, z: float = Z95, population: int | None = None
) -> int:
    """The smallest n whose half-width at ``rate`` is at most ``target``, with the same
    finite-population correction as :func:`half_width`: z sqrt(pq / n (1 - n / N)) <= H gives
    n >= n0 N / (N + n0) with n0 = z^2 pq / H^2 (Cochran 4.2), never more than N."""
    if not target > 0:
        raise ValueError("the half-width must be positive")
    n0 = z * z * rate * (1.0 - rate) / (target * target)
    if population is not None and population > 0:
        n0 = n0 * population / (population + n0)
    n = math.ceil(n0 - 1e-9)
    if population is not None and population > 0:
        n = min(n, population)
    return max(n, 1)


def one_query_step(n: int) -> float:
    """The smallest change one query makes to a binary rate over n queries."""
    return math.inf if n <= 0 else 1.0 / n


def detectable_difference(
    variance_of_mean_difference: float,
    alpha: float = DEFAULT_ALPHA,
    power: float = DEFAULT_POWER,
) -> float:
    """The smallest true difference a two-sided z-test at ``alpha`` finds with ``power``."""
    z_alpha = z_value(1.0 - alpha)
    z_power = z_value(2.0 * power - 1.0)  # the one-sided ``power`` quantile
    return (z_alpha + z_power) * math.sqrt(variance_of_mean_difference)


@dataclass(frozen=True)
class PlanRow:
    stratum: str
    n: int
    se: float
    half_width: float
    step: float
    needed: int | None  # size for the requested half-width, if one was asked for
    population: int | None = None  # N: distinct queries in the stratum, when known
    share: float | None = None  # traffic share W
    mde_paired: float | None = None  # smallest detectable difference, same queries, rho
    mde_unpaired: float | None = None  # the same with rho = 0
    n_effective: float | None = None  # the weighted row: the simple random sample as precise

    def to_json(self) -> dict[str, Any]:
        return {
            k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in asdict(self).items()
        }


def _mde(var_one: float, rho: float, alpha: float, power: float) -> tuple[float, float]:
    """Paired and unpaired detectable differences from the variance of one system's mean."""
    if not math.isfinite(var_one):
        return math.inf, math.inf
    paired = detectable_difference(2.0 * var_one * (1.0 - rho), alpha, power)
    return paired, detectable_difference(2.0 * var_one, alpha, power)


def plan_rows(
    sizes: Mapping[str, int],
    rate: float = DEFAULT_RATE,
    want: float | None = None,
    *,
    populations: Mapping[str, int] | None = None,
    shares: Mapping[str, float] | None = None,
    rho: float = DEFAULT_RHO,
    alpha: float = DEFAULT_ALPHA,
    power: float = DEFAULT_POWER,
) -> list[PlanRow]:
    """One row per stratum, then ``(all)`` for the unweighted mean over the whole set and, with
    ``shares``, ``(weighted)`` for the traffic-weighted headline."""
    if not 0.0 <= rate <= 1.0:
        raise ValueError("the assumed rate must lie between 0 and 1")
    if not -1.0 <= rho <= 1.0:
        raise ValueError("the correlation must lie between -1 and 1")
    pq = rate * (1.0 - rate)
    pops = populations or {}

    def needed(population: int | None) -> int | None:
        return size_for_half_width(want, rate, population=population) if want else None

    rows = []
    for s, n in sizes.items():
        var = pq / n * fpc(n, pops.get(s)) if n > 0 else math.inf
        paired, unpaired = _mde(var, rho, alpha, power)
        rows.append(
            PlanRow(
                s,
                n,
                math.sqrt(var),
                Z95 * math.sqrt(var),
                one_query_step(n),
                needed(pops.get(s)),
                pops.get(s),
                shares.get(s) if shares else None,
                paired,
                unpaired,
            )
        )
    # The unweighted mean over the set: each stratum weighted by its share of the set, n_h / n.
    total = sum(n for n in sizes.values() if n > 0)
    all_var = (
        sum((n / total) ** 2 * pq / n * fpc(n, pops.get(s)) for s, n in sizes.items() if n > 0)
        if total
        else math.inf
    )
    paired, unpaired = _mde(all_var, rho, alpha, power)
    rows.append(
        PlanRow(
            "(all)",
            total,
            math.sqrt(all_var),
            Z95 * math.sqrt(all_var),
            one_query_step(total),
            needed(sum(pops.get(s, 0) for s in sizes) or None),
            sum(pops.get(s, 0) for s in sizes) or None,
            None,
            paired,
            unpaired,
        )
    )
    if shares:
        rows.append(weighted_row(sizes, shares, pops, rate, rho, alpha, power))
    return rows


def weighted_row(
    sizes: Mapping[str, int],
    shares: Mapping[str, float],
    populations: Mapping[str, int],
    rate: float,
    rho: float,
    alpha: float,
    power: float,
) -> PlanRow:
    """The traffic-weighted headline: sum_h W_h^2 p (1 - p) / n_h (1 - n_h / N_h), with W the
    traffic shares of the planned strata (renormalised to 1 over them, as the weighted mean is)."""
    pq = rate * (1.0 - rate)
    planned = {s: shares.get(s, 0.0) for s in sizes}
    weight = sum(planned.values())
    if weight <= 0:
        var = math.inf
    else:
        var = 0.0
        for s, n in sizes.items():
            w = planned[s] / weight
            if w > 0:
                var += math.inf if n <= 0 else w * w * pq / n * fpc(n, populations.get(s))
    paired, unpaired = _mde(var, rho, alpha, power)
    total = sum(n for n in sizes.values() if n > 0)
    return PlanRow(
        "(weighted)",
        total,
        math.sqrt(var),
        Z95 * math.sqrt(var),
        one_query_step(total),
        None,
        None,
        weight,
        paired,
        unpaired,
        pq / var if 0 < var < math.inf else (math.inf if var == 0 else 0.0),
    )
