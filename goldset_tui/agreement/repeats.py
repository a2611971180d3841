"""Self-consistency: a seeded share of a labeller's judged pairs comes back, blind, to be judged again.

``repeat_pairs`` chooses which pairs come back (the judging screen serves them later without
showing the first grade, and records them with kind "repeat" so they never overwrite the first
judgment). ``self_consistency`` compares each repeat with the first judgment: intra-labeller
agreement, and drift (whether the second grade is systematically higher or lower, and whether
agreement falls as the day goes on).
"""

from __future__ import annotations

import hashlib
from typing import Any

import polars as pl

from goldset_tui.agreement import coefficients as co
from goldset_tui.model import GradeScale
from goldset_tui.scalar import as_float


def _key(seed: int, labeller: str, query_id: str, doc_id: str) -> str:
    return hashlib.sha256(f"{seed}\x1f{labeller}\x1f{query_id}\x1f{doc_id}".encode()).hexdigest()


def repeat_pairs(
    judged: list[tuple[str, str]], labeller: str, share: float, seed: int
) -> list[tuple[str, str]]:
    """The (query_id, doc_id) pairs to serve again: round(share * n), at least one when share > 0.

    Chosen by hash of (seed, labeller, pair), so the choice is stable as more pairs get judged and
    differs between labellers.
    """
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"repeat share must be between 0 and 1, got {share}")
    unique = sorted(set(judged), key=lambda p: _key(seed, labeller, *p))
    if not unique or share == 0:
        return []
    count = max(1, round(share * len(unique)))
    return unique[:count]


def self_consistency(
    judgments: pl.DataFrame, scale: GradeScale, *, buckets: int = 4
) -> list[dict[str, Any]]:
    """Per labeller: n repeats, agreement, quadratic kappa, mean shift (repeat - first), and the
    agreement in ``buckets`` equal slices of the repeats in time order (drift over the day).

    ``judgments`` is the store's event log; the first judgment of a pair is its earliest "judge"
    event, the repeat its latest "repeat" event.
    """
    key = ["labeller", "query_id", "doc_id"]
    log = judgments.filter(pl.col("grade").is_not_null()).sort("seq")
    first = (
        log.filter(pl.col("kind") == "judge")
        .group_by(key)
        .agg(pl.col("grade").first().alias("first"))
    )
    again = (
        log.filter(pl.col("kind") == "repeat")
        .group_by(key)
        .agg(pl.col("grade").last().alias("repeat"), pl.col("time").last(), pl.col("seq").last())
    )
    pairs = first.join(again, on=key, how="inner").sort("labeller", "seq")
    out = []
    for (labeller,), part in pairs.group_by("labeller", maintain_order=True):
        confusion = co.confusion_from_frame(part.select(a="first", b="repeat"), scale.grades)
        n = part.height
        size = max(1, -(-n // buckets))
        slices = [part.slice(i, size) for i in range(0, n, size)]
        out.append(
            {
                "labeller": labeller,
                "n": n,
                "agreement": co.raw_agreement(confusion),
                "kappa_quadratic": co.cohen_kappa(confusion, "quadratic"),
                "mean_shift": as_float((part["repeat"] - part["first"]).mean()),
                "agreement_by_time": [as_float((s["repeat"] == s["first"]).mean()) for s in slices],
            }
        )
    return out
