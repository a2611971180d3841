"""The blind order of a query's candidates, the same every time for one labeller and query."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence


def blind_seed(labeller: str, query_id: str) -> int:
    # hashlib, not hash(): Python's str hash changes per process, and the order must be the same
    # every time this labeller opens this query (and reproducible for the position-bias check).
    digest = hashlib.sha256(f"{labeller}\x1f{query_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def blind_order(labeller: str, query_id: str, doc_ids: Sequence[str]) -> list[int]:
    """Indices into ``doc_ids`` in the order this labeller sees them.

    Sorted by doc_id first, so the order does not depend on the row order of the pool file.
    """
    by_id = sorted(range(len(doc_ids)), key=lambda i: doc_ids[i])
    random.Random(blind_seed(labeller, query_id)).shuffle(by_id)
    return by_id
