"""Coverage of the routed-with-errors figure's 95% interval (``decisions.router_error``): what a
router with known precision per stratum would score over the traffic, estimated from a golden
set drawn the way goldset draws one (strata sampled independently: 7, 18 and 40 queries), each
query scored by both systems.

The population quantity, worked by hand from the module's model: stratum g's own route serves
what the router files correctly, the misfiled traffic I_h = W_h (1 - p_h) / p_h of route h comes
from the other strata in proportion to their traffic, and is served by h's system:
    truth = sum_g W_g m_{R(g)}(g) - sum_h sum_g I_h c_hg (m_{R(g)}(g) - m_{R(h)}(g)).
The interval must hold it at least 93% of the time (1,000 sets a row: a standard error of
0.7 points around 95%) and lie inside [0, 1]. The same study at more sets and more shapes:
``python bench/decision_coverage.py``."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from goldset_tui.decisions.router_error import misrouting, precisions

STRATA = ("a", "b", "c")
SIZES = (7, 18, 40)
ROUTES = {"a": "x", "b": "y", "c": "x"}
PRECISION = {"a": 0.9, "b": 0.85}  # c: assumed 1
REPS = 1000
FLOOR = 0.93

# Per stratum, each system's per-query score distribution: 0/1 rates, or graded steps.
RATES = {"x": (0.55, 0.60, 0.92), "y": (0.35, 0.80, 0.70)}
STEPS = np.array([0.0, 0.387, 0.631, 1.0])
STEP_P = {"x": (0.4, 0.2, 0.2, 0.2), "y": (0.2, 0.2, 0.2, 0.4)}


def truth(shares: dict[str, float], means: dict[tuple[str, str], float]) -> float:
    """The routed-with-errors mean over the traffic, from the true stratum means (docstring)."""
    own = sum(shares[g] * means[ROUTES[g], g] for g in STRATA)
    lost = 0.0
    for h, p in PRECISION.items():
        misfiled = shares[h] * (1 - p) / p
        others = {g: shares[g] for g in STRATA if g != h}
        for g, w in others.items():
            c = w / sum(others.values())
            lost += misfiled * c * (means[ROUTES[g], g] - means[ROUTES[h], g])
    return own - lost


def _draw(rng: np.random.Generator, binary: bool, system: str, k: int, n: int) -> np.ndarray:
    if binary:
        return (rng.random(n) < RATES[system][k]).astype(float)
    return rng.choice(STEPS, p=STEP_P[system], size=n)


def _mean(binary: bool, system: str, k: int) -> float:
    return RATES[system][k] if binary else float(np.dot(STEPS, STEP_P[system]))


@pytest.mark.parametrize("binary", [True, False], ids=["0/1", "graded"])
@pytest.mark.parametrize("shares", [(0.6, 0.3, 0.1), (0.1, 0.3, 0.6)], ids=str)
def test_routed_with_errors_interval_covers_the_routers_mean(binary: bool, shares) -> None:
    share = dict(zip(STRATA, shares, strict=True))
    means = {(s, g): _mean(binary, s, k) for s in ("x", "y") for k, g in enumerate(STRATA)}
    mu = truth(share, means)
    plan = precisions(list(STRATA), share, PRECISION)
    strata = pl.DataFrame(
        {
            "query_id": [f"{g}{i}" for g, n in zip(STRATA, SIZES, strict=True) for i in range(n)],
            "stratum": [g for g, n in zip(STRATA, SIZES, strict=True) for _ in range(n)],
        }
    )
    ids = strata.get_column("query_id").to_list()
    rng = np.random.default_rng(20261206 + int(binary) + int(shares[0] * 10))
    covered = 0
    for _ in range(REPS):
        values = {
            s: np.concatenate([_draw(rng, binary, s, k, n) for k, n in enumerate(SIZES)]).tolist()
            for s in ("x", "y")
        }
        scores = pl.DataFrame(
            {
                "system": ["x"] * len(ids) + ["y"] * len(ids),
                "query_id": ids + ids,
                "value": values["x"] + values["y"],
            }
        )
        found = misrouting(
            scores,
            strata,
            share,
            ROUTES,
            plan,
            table_method="wilson" if binary else "score-t",
            bounded=True,
        )
        lo, hi = found.overall.ci
        assert 0.0 <= lo <= hi <= 1.0
        covered += lo <= mu <= hi
    assert covered / REPS >= FLOOR, f"{covered / REPS:.3f} of {REPS} hold {mu:.4f}"


def test_the_truth_by_hand_matches_a_worked_case() -> None:
    # Shares 0.6/0.3/0.1; a misfiles 0.6 x 0.1 / 0.9 = 1/15 of the traffic, 3/4 of it from b
    # (served by x instead of y) and 1/4 from c (x either way: costs nothing); b misfiles
    # 0.3 x 0.15 / 0.85 = 9/170, 6/7 from a (y instead of x) and 1/7 from c (y instead of x).
    share = dict(zip(STRATA, (0.6, 0.3, 0.1), strict=True))
    means = {("x", "a"): 0.5, ("x", "b"): 0.4, ("x", "c"): 0.9}
    means |= {("y", "a"): 0.3, ("y", "b"): 0.8, ("y", "c"): 0.7}
    own = 0.6 * 0.5 + 0.3 * 0.8 + 0.1 * 0.9
    lost = (1 / 15) * 0.75 * (0.8 - 0.4) + (9 / 170) * ((6 / 7) * 0.2 + (1 / 7) * 0.2)
    assert truth(share, means) == pytest.approx(own - lost, abs=1e-12)
