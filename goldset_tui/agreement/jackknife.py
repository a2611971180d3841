"""Every agreement figure's interval: a jackknife over queries with Student t, on log(1 - value)
for Krippendorff's alpha and Cohen's kappas, in Wilson's form for shares of agreeing pairs.

The cluster bootstrap's percentile interval (``bootstrap``) runs narrow with few queries: with 8
judged queries it held the true alpha 87-88% of the time, with 15 and 30 about 92-94% (seeded
simulations of three labellers on queries whose agreement varies, bench/interval_coverage.py
--only alpha, docs/agreement.md). A resample of 8 queries repeats some and leaves others out, so
the spread of the replicates understates how far another 8 queries could land; BCa, which corrects
the percentiles' centre and skew but not their spread, did no better (0.88-0.94).

Leaving one query out at a time (the jackknife, resampling the same clusters: Quenouille, Tukey;
Efron & Tibshirani 1993, ch. 11) gives a standard error, and Student's t with Q - 1 degrees of
freedom gives the interval its small-sample width. alpha = 1 - (n - 1) D_o / D_e is one minus a
ratio of disagreements, skewed toward 1 when agreement is high, so the interval is made on the
logarithm of that ratio, log(1 - alpha), and carried back: it never passes 1, and it reaches
further down than up, as the replicates do. This held 0.94 or more at 8, 15 and 30 queries in both
simulations (plain jackknife t on alpha: 0.91-0.93 at 8 queries); a bootstrap-t, tried in a
numpy sketch, covered alike at about the same width but needs a second level of resampling.

Where log(1 - alpha) cannot be taken (perfect agreement with a query left out, 1 - alpha = 0) the
jackknife t interval on alpha itself is used, capped at 1; where alpha is undefined with some query
left out (no variation left), the caller keeps the bootstrap's percentile interval. The lower
end stops at -1.

Cohen's kappas (unweighted, linear, quadratic) are 1 - O / E in the same way and take the same
interval; the percentile bootstrap held them 0.80-0.89 at 8 queries (bench/interval_coverage.py
--only kappa, docs/agreement.md). A kappa whose disagreements all sit in one query, or in none, has
nothing for the logarithm to measure; the caller (``intervals``) then reads its observed
disagreement as a share and uses ``rate_interval``.

Raw agreement and a cut-off's agreement are shares of agreeing pairs in [0, 1]: ``rate_interval``
puts the jackknife's variance into Wilson's score form (an effective number of observations,
Kish's design effect), so the interval stays inside [0, 1] and keeps a width at 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from goldset_tui.eval.intervals import wilson_form
from goldset_tui.eval.t_distribution import t_quantile

JACKKNIFE_TEXT = (
    "alpha and kappas: jackknife over queries, Student t on log(1 - value); agreements: "
    "Wilson's form on the jackknife's effective n, Student t"
)
# Below -1 alpha only says "systematic disagreement"; with a handful of queries the t quantile can
# carry the lower end far past it (t = 12.7 with two queries), which would print as noise.
FLOOR = -1.0


def leave_one_out(
    columns: Sequence[str],
    rows: Sequence[Sequence[float]],
    compute: Callable[[dict[str, float]], dict[str, float | None]],
) -> tuple[dict[str, float | None], list[dict[str, float | None]]]:
    """(every figure on all queries, every figure with each query left out in turn), from one row
    of count cells per query; ``compute`` maps summed cells to figures."""
    totals = [math.fsum(column) for column in zip(*rows, strict=True)] if rows else []
    whole = compute(dict(zip(columns, totals, strict=True)))
    left_out = [
        compute({c: t - v for c, t, v in zip(columns, totals, row, strict=True)}) for row in rows
    ]
    return whole, left_out


def jackknife_interval(
    estimate: float | None, left_out: Sequence[float | None], confidence: float
) -> tuple[float, float] | None:
    """The interval of a coefficient of the form 1 - observed / expected disagreement (an alpha,
    a Cohen's kappa) from its value on all Q queries and its Q leave-one-out values (module
    docstring); None where it cannot be made (fewer than two queries, the figure undefined)."""
    q = len(left_out)
    if estimate is None or q < 2 or any(v is None for v in left_out):
        return None
    values = [float(v) for v in left_out]  # type: ignore[arg-type]
    t = t_quantile(0.5 + confidence / 2.0, float(q - 1))
    if estimate < 1.0 and all(v < 1.0 for v in values):
        logs = [math.log1p(-v) for v in values]
        se = _jackknife_se(logs)
        centre = math.log1p(-estimate)
        return (max(FLOOR, -math.expm1(centre + t * se)), -math.expm1(centre - t * se))
    se = _jackknife_se(values)
    return (max(FLOOR, estimate - t * se), min(1.0, estimate + t * se))


def t_interval(
    estimate: float | None, left_out: Sequence[float | None], confidence: float
) -> tuple[float, float] | None:
    """The plain jackknife t interval, estimate -+ t(Q - 1) x the jackknife standard error, for a
    figure with no bound to respect (a machine's mean grade difference from a person); None
    where it cannot be made (fewer than two queries, the figure undefined)."""
    q = len(left_out)
    if estimate is None or q < 2 or any(v is None for v in left_out):
        return None
    t = t_quantile(0.5 + confidence / 2.0, float(q - 1))
    se = _jackknife_se([float(v) for v in left_out])  # type: ignore[arg-type]
    return (estimate - t * se, estimate + t * se)


def rate_interval(
    estimate: float | None, left_out: Sequence[float | None], confidence: float
) -> tuple[float, float] | None:
    """The interval of a share of agreeing pairs (raw agreement, a cut-off's agreement) from its
    value on all Q queries and its Q leave-one-out values: Wilson's score form on the effective
    number of observations the jackknife variance implies, p (1 - p) / v, with Student t at Q - 1
    degrees of freedom for its quantile. Inside [0, 1] by construction, and of positive width at
    0 or 1. Where the queries do not vary at all (every query agreeing on every pair, or none),
    the variance is 0 and says nothing about clustering: each query then counts as one
    observation (n = Q), the widest reading of how alike a query's pairs are. None where it
    cannot be made (fewer than two queries, the figure undefined)."""
    q = len(left_out)
    if estimate is None or q < 2 or any(v is None for v in left_out):
        return None
    values = [float(v) for v in left_out]  # type: ignore[arg-type]
    t = t_quantile(0.5 + confidence / 2.0, float(q - 1))
    variance = _jackknife_se(values) ** 2
    p = min(1.0, max(0.0, estimate))
    # Never fewer effective observations than queries: below that the design effect would say a
    # query's pairs are more than wholly alike.
    n_eff = max(float(q), p * (1.0 - p) / variance) if variance > 0.0 else float(q)
    return wilson_form(p, n_eff, t)


def _jackknife_se(values: Sequence[float]) -> float:
    q = len(values)
    mean = math.fsum(values) / q
    return math.sqrt((q - 1) / q * math.fsum((v - mean) ** 2 for v in values))
