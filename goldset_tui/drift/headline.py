"""The headline under the shares in force then and now, and the decisions that flip.

Each stratum's mean m_h is a property of the systems and the golden set; only the weights move.
Under shares W the headline of a system is sum_h W_h m_h over the golden set's strata (the
report's traffic-weighted headline, not renormalised: ``covered`` says how much of the traffic
the golden set's strata hold). The gap between systems a and b moves by

    sum_h (W_new,h - W_old,h) (m_a,h - m_b,h)

so each stratum's part of the move is its change of share times its gap: an identifier stratum
where a leads b by 0.33, moving from 18% to 45% of the traffic, moves the gap by 0.27 x 0.33 =
0.089 on its own (docs/drift.md works it). A decision flips when the system with the highest
headline changes, or a pair's gap changes sign. The gap under the new shares carries the
report's paired, stratified interval (``eval.weighting.weighted_difference``), so a flip inside
the noise reads as such.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import polars as pl


@dataclass(frozen=True)
class Reweighted:
    """What the new shares do to the headline (``to_json`` gives the documented keys)."""

    strata: list[dict[str, Any]]  # stratum, n, old_share, new_share, means {system: mean}
    systems: dict[str, dict[str, float]]  # system -> old, new, change
    covered: dict[str, float]  # old, new: the traffic share the golden set's strata hold
    winner_old: list[str]
    winner_new: list[str]
    pairs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def winner_flips(self) -> bool:
        return self.winner_old != self.winner_new

    def to_json(self) -> dict[str, Any]:
        return {
            "strata": [_clean_tree(s) for s in self.strata],
            "systems": {k: _clean_tree(v) for k, v in self.systems.items()},
            "covered": _clean_tree(self.covered),
            "winner": {"old": self.winner_old, "new": self.winner_new, "flips": self.winner_flips},
            "pairs": [_clean_tree(p) for p in self.pairs],
        }


def _clean_tree(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _clean_tree(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean_tree(v) for v in value]
    return value


def stratum_means(scores: pl.DataFrame, strata: pl.DataFrame) -> tuple[list[str], pl.DataFrame]:
    """Strata in the strata file's order, and ``stratum, system, n, mean`` for each."""
    order = strata.get_column("stratum").unique(maintain_order=True).to_list()
    table = (
        scores.join(strata.select("query_id", "stratum"), on="query_id", how="inner")
        .group_by("stratum", "system", maintain_order=True)
        .agg(n=pl.len(), mean=pl.col("value").mean())
    )
    return order, table


def _sign(x: float) -> int:
    """-1, 0 or 1; a gap within rounding noise of 0 is 0 (a tie)."""
    return 0 if abs(x) <= 1e-12 else (1 if x > 0 else -1)


def _winners(headlines: Mapping[str, float]) -> list[str]:
    finite = {s: v for s, v in headlines.items() if math.isfinite(v)}
    if not finite:
        return []
    top = max(finite.values())
    # A tie within rounding noise is a tie: no system "wins" by 1e-15.
    return [s for s, v in finite.items() if abs(v - top) <= 1e-12]


def reweigh(
    scores: pl.DataFrame,
    strata: pl.DataFrame,
    old: Mapping[str, float],
    new: Mapping[str, float],
    *,
    systems: Sequence[str] | None = None,
    bounded: bool = True,
    binary: bool = False,
) -> Reweighted:
    """The headline of each system of ``scores`` (system, query_id, value) under the ``old`` and
    the ``new`` shares (stratum -> share), over the strata of ``strata`` (query_id, stratum)."""
    from goldset_tui.eval.weighting import weighted_difference

    order, table = stratum_means(scores, strata)
    names = list(systems) if systems else scores.get_column("system").unique(maintain_order=True)
    names = [str(s) for s in names]
    means: dict[str, dict[str, float]] = {s: {} for s in order}
    sizes: dict[str, int] = {}
    for stratum, system, n, mean in table.iter_rows():
        means[str(stratum)][str(system)] = float(mean)
        sizes[str(stratum)] = int(n)
    rows: list[dict[str, Any]] = [
        {
            "stratum": s,
            "n": sizes.get(s, 0),
            "old_share": float(old.get(s, 0.0)),
            "new_share": float(new.get(s, 0.0)),
            "means": {y: means[s].get(y, math.nan) for y in names},
        }
        for s in order
    ]
    heads: dict[str, dict[str, float]] = {}
    for y in names:
        h_old = math.fsum(r["old_share"] * r["means"][y] for r in rows if r["n"])
        h_new = math.fsum(r["new_share"] * r["means"][y] for r in rows if r["n"])
        heads[y] = {"old": h_old, "new": h_new, "change": h_new - h_old}
    covered = {
        "old": math.fsum(r["old_share"] for r in rows if r["n"]),
        "new": math.fsum(r["new_share"] for r in rows if r["n"]),
    }
    traffic = pl.DataFrame(
        {"stratum": [r["stratum"] for r in rows], "share": [r["new_share"] for r in rows]},
        schema={"stratum": pl.String, "share": pl.Float64},
    )
    pairs = []
    for a, b in combinations(names, 2):
        gap_old = heads[a]["old"] - heads[b]["old"]
        gap_new = heads[a]["new"] - heads[b]["new"]
        parts = {
            r["stratum"]: (r["new_share"] - r["old_share"]) * (r["means"][a] - r["means"][b])
            for r in rows
            if r["n"]
        }
        est = weighted_difference(
            scores, strata, traffic, a, b, bounded=bounded, binary=binary and bounded
        )
        pairs.append(
            {
                "a": a,
                "b": b,
                "gap_old": gap_old,
                "gap_new": gap_new,
                "change": gap_new - gap_old,
                "by_stratum": parts,
                "gap_new_ci95": list(est.ci),
                "flips": _sign(gap_old) != _sign(gap_new),
            }
        )
    return Reweighted(
        strata=rows,
        systems=heads,
        covered=covered,
        winner_old=_winners({y: h["old"] for y, h in heads.items()}),
        winner_new=_winners({y: h["new"] for y, h in heads.items()}),
        pairs=pairs,
    )
