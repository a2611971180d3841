"""How far the traffic may move before a comparison reverses (docs/report.md, "Traffic that
moves").

The traffic-weighted gap between systems a and b is G = sum_h W_h d_h, with d_h = m_a(h) - m_b(h)
the stratum's gap. Move stratum j's share to w and rescale the others in proportion (each keeps
its share of what is left): W_i' = W_i (1 - w) / (1 - W_j). Then

    G(w) = w d_j + (1 - w) R_j,   R_j = (G - W_j d_j) / (1 - W_j)

(R_j: the other strata's gap, weighted among themselves). G(w) is a straight line, zero at
w* = R_j / (R_j - d_j); when w* lies in [0, 1] the comparison reverses past it, and
``move`` = w* - W_j is how far the share must travel. When d_j = R_j the share does not matter.

Under another log's shares W' (``--traffic-now``) the gap is G' = sum_h W'_h d_h, and the shift
G' - G splits exactly into one term per stratum, (W'_h - W_h) d_h: the stratum's gap times the
change in its weight. Moving 18% of the traffic to 45% on a stratum where a leads by 0.333 is
0.27 x 0.333 = 0.09 of that shift, nine points, from one row and with no ranker changed.
Each gap carries the report's paired traffic-weighted interval (``weighting.weighted_difference``).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import polars as pl

from goldset_tui.decisions.routing import stratum_means
from goldset_tui.eval.intervals import DEFAULT_CONFIDENCE
from goldset_tui.eval.weighting import weighted_difference

TOLERANCE = 1e-12


def reversing_share(share: float, gap_here: float, gap: float) -> dict[str, Any]:
    """For one stratum: its share W_j, its gap d_j, the headline gap G; the others' gap R_j, the
    share w* at which the headline gap is 0 and the move w* - W_j. G(w) runs from R_j (w = 0)
    to d_j (w = 1), so it reverses only towards an end of the other sign: up when d_j G < 0,
    down when R_j G < 0. None when neither end is (reaching 0 at an end is a tie, not a
    reversal) or the share does not matter (d_j = R_j); a tied headline (G = 0) is decided by
    any move, at the share it has."""
    if share >= 1.0 - TOLERANCE:
        return {"others_gap": None, "reversing_share": None, "move": None}
    others = (gap - share * gap_here) / (1.0 - share)
    if abs(others - gap_here) <= TOLERANCE:
        return {"others_gap": others, "reversing_share": None, "move": None}
    if gap == 0.0:
        return {"others_gap": others, "reversing_share": share, "move": 0.0}
    if not (gap_here * gap < 0.0 or others * gap < 0.0):
        return {"others_gap": others, "reversing_share": None, "move": None}
    w = others / (others - gap_here)
    return {"others_gap": others, "reversing_share": w, "move": w - share}


def sensitivity(
    scores: pl.DataFrame,
    strata: pl.DataFrame,
    shares: dict[str, float],
    systems: list[str],
    *,
    bounded: bool,
    binary: bool,
    now: dict[str, float] | None = None,
    population: dict[str, float] | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Per pair of ``systems``: the headline gap with its interval and, per stratum, its share,
    gap and reversing share; with ``now`` (another log's shares), the gap under them and the
    shift split by stratum. Strata are those with both a share and queries."""
    strata = strata.select("query_id", "stratum")
    means = stratum_means(scores, strata)
    present = {g for g, _ in means}
    order = [g for g in shares if g in present]
    pairs = []
    shifts = []
    for a, b in itertools.combinations(systems, 2):
        gaps = {g: means[(g, a)] - means[(g, b)] for g in order}
        gap = _zero(sum(shares[g] * gaps[g] for g in order))
        ci = _gap_ci(scores, strata, shares, a, b, bounded, binary, population, confidence)
        rows = [
            {"stratum": g, "share": shares[g], "gap": gaps[g]}
            | reversing_share(shares[g], gaps[g], gap)
            for g in order
        ]
        pairs.append({"a": a, "b": b, "gap": gap, "ci95": ci, "strata": rows})
        if now is not None:
            shifts.append(_under(now, shares, gaps, a, b, gap, scores, strata, bounded, binary))
    if now is None:
        return pairs, None
    return pairs, {
        "shares": {g: now.get(g, 0.0) for g in order},
        "shares_sum": sum(now.values()),
        "strata_without_share": [g for g in order if g not in now],
        "strata_without_queries": [g for g in now if g not in present],
        "pairs": shifts,
    }


def _under(
    now: dict[str, float],
    shares: dict[str, float],
    gaps: dict[str, float],
    a: str,
    b: str,
    gap: float,
    scores: pl.DataFrame,
    strata: pl.DataFrame,
    bounded: bool,
    binary: bool,
) -> dict[str, Any]:
    moved = {g: now.get(g, 0.0) for g in gaps}
    gap_now = _zero(sum(moved[g] * d for g, d in gaps.items()))
    ci = _gap_ci(scores, strata, moved, a, b, bounded, binary, None, DEFAULT_CONFIDENCE)
    return {
        "a": a,
        "b": b,
        "gap": gap,
        "gap_now": gap_now,
        "ci95_now": ci,
        "shift": gap_now - gap,
        "reversed": (gap > 0 > gap_now) or (gap < 0 < gap_now),
        "strata": [
            {
                "stratum": g,
                "share": shares[g],
                "share_now": moved[g],
                "gap": d,
                "contribution": (moved[g] - shares[g]) * d,
            }
            for g, d in gaps.items()
        ],
    }


def _zero(gap: float) -> float:
    """A gap of rounding error (two systems tied on 222 of 300 weigh to -2e-17) is a tie."""
    return 0.0 if abs(gap) <= 1e-12 else gap


def _gap_ci(
    scores: pl.DataFrame,
    strata: pl.DataFrame,
    shares: dict[str, float],
    a: str,
    b: str,
    bounded: bool,
    binary: bool,
    population: dict[str, float] | None,
    confidence: float,
) -> list[float | None]:
    traffic = pl.DataFrame(
        {"stratum": list(shares), "share": list(shares.values())},
        schema={"stratum": pl.Utf8, "share": pl.Float64},
    ).filter(pl.col("share") > 0)
    est = weighted_difference(
        scores,
        strata,
        traffic,
        a,
        b,
        population=population,
        confidence=confidence,
        bounded=bounded,
        binary=binary,
    )
    return [x if math.isfinite(x) else None for x in est.ci]
