"""The paired difference's interval written out by hand with numpy and scipy (docs/report.md), for
tests that check what `goldset compare`, the report and the history print."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.stats import t


def difference_interval_by_hand(diffs: Sequence[float]) -> tuple[float, float]:
    """u = (d + 1) / 2; dispersion phi = s^2 / (m (1 - m)) shrunk toward 1 by one pseudo-query in
    proportion to the share of u at 0, 1/2 or 1 (the whole pseudo-query when s = 0); Wilson's
    formula at m with n / phi queries and t(n - 1) for 1.96; carried back by 2u - 1."""
    u = (np.asarray(diffs, dtype=float) + 1) / 2
    n, m, var = len(u), u.mean(), u.var(ddof=1)
    at = 1.0 if var == 0 else float(np.isin(u, (0.0, 0.5, 1.0)).mean())
    phi0 = var / (m * (1 - m)) if 0 < m < 1 else 1.0
    n_eff = n / ((n * phi0 + at) / (n + at))
    q = t.ppf(0.975, n - 1)
    centre = (m + q * q / (2 * n_eff)) / (1 + q * q / n_eff)
    half = q / (1 + q * q / n_eff) * math.sqrt(m * (1 - m) / n_eff + q * q / (4 * n_eff**2))
    return max(-1.0, 2 * (centre - half) - 1), min(1.0, 2 * (centre + half) - 1)


def tango_by_hand(
    only_a: int, only_b: int, n: int, confidence: float = 0.95, *, q: float | None = None
) -> tuple[float, float]:
    """Tango's score interval for p_a - p_b on n paired 0/1 queries, written out with scipy and no
    closed form: for each candidate d the share of b-only queries is fitted by maximising the
    multinomial likelihood numerically; the interval is where |score statistic| <= t(n - 1), or
    ``q`` when given."""
    from scipy.optimize import brentq, minimize_scalar

    rest = n - only_a - only_b

    def fitted_b_only(d: float) -> float:
        # Cells: a only p + d, b only p, concordant 1 - 2p - d; p in [max(0, -d), (1 - d) / 2].
        low, high = max(0.0, -d), (1.0 - d) / 2.0

        def minus_loglik(p: float) -> float:
            cells = ((only_a, p + d), (only_b, p), (rest, 1.0 - 2.0 * p - d))
            return -sum(k * math.log(max(x, 1e-300)) for k, x in cells if k)

        fit = minimize_scalar(
            minus_loglik, bounds=(low, high), method="bounded", options={"xatol": 1e-13}
        )
        return float(fit.x)

    def score(d: float) -> float:
        p = fitted_b_only(d)
        return (only_a - only_b - n * d) / math.sqrt(n * (2 * p + d - d * d))

    if q is None:
        q = t.ppf(0.5 + confidence / 2, n - 1)
    observed = (only_a - only_b) / n
    edge = 1e-9
    inner = min(max(observed, -1 + edge), 1 - edge)
    lo = -1.0 if score(-1 + edge) <= q else brentq(lambda d: score(d) - q, -1 + edge, inner)
    hi = 1.0 if score(1 - edge) >= -q else brentq(lambda d: score(d) + q, inner, 1 - edge)
    return lo, hi


def weighted_tango_by_hand(
    strata: Sequence[tuple[float, int, int, int]],
) -> tuple[float, float, float]:
    """(mean, low, high) of the traffic-weighted paired difference of a 0/1 measure, strata given
    as (share W_h, n_h, only_a, only_b): each stratum's Tango interval, first at the normal
    quantile for its term W_h^2 (half-width / z)^2, the Welch-Satterthwaite df of those terms,
    then every stratum's Tango interval at t(df), combined by MOVER (Zou & Donner 2008):
    mean -+ sqrt(sum W_h^2 (distance from d_h to that end)^2)."""
    from scipy.stats import norm

    z = norm.ppf(0.975)
    d = [(a - b) / n for _, n, a, b in strata]
    terms = []
    for w, n, a, b in strata:
        lo, hi = tango_by_hand(a, b, n, q=z)
        terms.append(w * w * ((hi - lo) / (2 * z)) ** 2)
    df = sum(terms) ** 2 / sum(
        x * x / (n - 1) for x, (_, n, _, _) in zip(terms, strata, strict=True)
    )
    q = t.ppf(0.975, df)
    ends = [tango_by_hand(a, b, n, q=q) for _, n, a, b in strata]
    mean = sum(w * x for (w, *_), x in zip(strata, d, strict=True))
    below = sum(w * w * (x - e[0]) ** 2 for (w, *_), x, e in zip(strata, d, ends, strict=True))
    above = sum(w * w * (e[1] - x) ** 2 for (w, *_), x, e in zip(strata, d, ends, strict=True))
    return mean, max(-1.0, mean - math.sqrt(below)), min(1.0, mean + math.sqrt(above))
