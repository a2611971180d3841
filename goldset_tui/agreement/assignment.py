"""Overlap by design: which queries each labeller judges.

A seeded share of the queries goes to every labeller (so agreement is measured on a planned sample,
not on whatever happened to overlap); the rest are split so that each is judged by exactly one
labeller, balanced across labellers.

Every decision comes from a SHA-256 hash of (seed, query_id), never from the order of the input or
from Python's per-process ``hash``: the same seed gives the same split on every machine and run,
and adding a query does not reshuffle the others' overlap membership.
"""

from __future__ import annotations

import hashlib


def query_rank_key(seed: int, query_id: str) -> str:
    return hashlib.sha256(f"{seed}\x1f{query_id}".encode()).hexdigest()


def overlap_query_ids(query_ids: list[str], overlap: float, seed: int) -> set[str]:
    """The round(overlap * n) queries judged by everyone: those with the smallest hash keys."""
    if not 0.0 <= overlap <= 1.0:
        raise ValueError(f"overlap must be between 0 and 1, got {overlap}")
    unique = sorted(set(query_ids), key=lambda q: query_rank_key(seed, q))
    count = round(overlap * len(unique))
    return set(unique[:count])


def assigned_query_ids(
    query_ids: list[str], labeller: str, labellers: list[str], overlap: float, seed: int
) -> list[str]:
    """The queries ``labeller`` should judge, in the order of ``query_ids``.

    The overlap share goes to everyone; each remaining query goes to one labeller, dealt round-robin
    over the labellers (sorted by name) in hash order, so shares differ by at most one query.
    """
    team = sorted(set(labellers))
    if labeller not in team:
        raise ValueError(f"labeller {labeller!r} is not one of {', '.join(team) or 'no labellers'}")
    shared = overlap_query_ids(query_ids, overlap, seed)
    rest = sorted(
        (q for q in set(query_ids) if q not in shared), key=lambda q: query_rank_key(seed, q)
    )
    me = team.index(labeller)
    mine = shared | {q for i, q in enumerate(rest) if i % len(team) == me}
    seen: set[str] = set()
    out = []
    for q in query_ids:
        if q in mine and q not in seen:
            seen.add(q)
            out.append(q)
    return out
