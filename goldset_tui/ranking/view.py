"""Two orderings of the systems side by side, flips marked: what the system-ranking screen draws.

Contract: :func:`side_by_side` takes one entry of ``system_ranking["pairs"]`` (see
``system_ranking.py``) and returns one row per rank: the system at that rank under ``a`` and its
mean, the system at that rank under ``b`` and its mean, and for each side whether that system is
in a flip. Systems are ordered by mean, highest first, ties by name (the order a reader expects;
the correlations break ties as ``ranking.py`` says). :func:`flip_lines` says each flip in words.
Pure; no Textual.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RankRow:
    rank: int
    system_a: str
    mean_a: float
    flipped_a: bool
    system_b: str
    mean_b: float
    flipped_b: bool


def ordered(means: Mapping[str, float]) -> list[str]:
    return sorted(means, key=lambda s: (-means[s], s))


def side_by_side(pair: Mapping[str, Any]) -> list[RankRow]:
    means_a: dict[str, float] = dict(pair.get("means_a") or {})
    means_b: dict[str, float] = dict(pair.get("means_b") or {})
    in_flip = {s for f in pair.get("flips", []) for s in (f["x"], f["y"])}
    rows = []
    for i, (a, b) in enumerate(zip(ordered(means_a), ordered(means_b), strict=True), 1):
        rows.append(RankRow(i, a, means_a[a], a in in_flip, b, means_b[b], b in in_flip))
    return rows


def flip_lines(pair: Mapping[str, Any]) -> list[str]:
    """``"bm25 > dense under alice (+0.050, significant); < under llm (-0.020)"``, one per flip."""
    out = []
    for f in pair.get("flips", []):
        sig = "significant" if f.get("significant_a") else "not significant"
        rel_a = ">" if f["diff_a"] > 0 else "<" if f["diff_a"] < 0 else "="
        rel_b = ">" if f["diff_b"] > 0 else "<" if f["diff_b"] < 0 else "="
        out.append(
            f"{f['x']} {rel_a} {f['y']} under {pair['a']} ({f['diff_a']:+.3f}, {sig}); "
            f"{rel_b} under {pair['b']} ({f['diff_b']:+.3f})"
        )
    return out


def scopes(ranking: Mapping[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """``("all queries", pairs)`` then one ``(stratum, pairs)`` per stratum."""
    out = [("all queries", list(ranking.get("pairs", [])))]
    out += [(f"stratum {s['stratum']}", list(s["pairs"])) for s in ranking.get("strata", [])]
    return out
