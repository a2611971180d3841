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
