"""Synthetic per-query data that reproduces the worked examples' tables exactly (shared by the
report tests; the examples: docs/background.md#worked-examples).

The 300-query table: n per stratum 54+61+22+96+49+18 = 300; BM25 hits 51,53,9,65,36,8 = 222. The
example names dense's identifier hits (33) and negation hits (7) and says dense totals 222 with 31
queries missed by both; the other dense cells and the per-stratum shared misses below are one choice
that satisfies all of that (checked by hand: dense misses 21+13+4+16+13+11 = 78, shared 2+5+3+10+5+6
= 31).
"""

from __future__ import annotations

import polars as pl

# stratum: (n, bm25 hits, dense hits, missed by both)
TWO_RETRIEVERS = {
    "exact_identifier": (54, 51, 33, 2),
    "short_keyword": (61, 53, 48, 5),
    "misspelled": (22, 9, 18, 3),
    "paraphrase": (96, 65, 80, 10),
    "multi_entity": (49, 36, 36, 5),
    "negation": (18, 8, 7, 6),
}


def two_retrievers_frames() -> tuple[pl.DataFrame, pl.DataFrame]:
    """(scores: system, query_id, value ; strata: query_id, stratum) for the 300 queries."""
    rows: list[tuple[str, str, float]] = []
    strata: list[tuple[str, str]] = []
    number = 0
    for stratum, (n, hits_a, hits_b, both) in TWO_RETRIEVERS.items():
        miss_a, miss_b = n - hits_a, n - hits_b
        # Lay the stratum's queries out as: both miss | only bm25 misses | only dense misses | both hit.
        only_a, only_b = miss_a - both, miss_b - both
        assert only_a >= 0 and only_b >= 0 and both + only_a + only_b <= n
        for i in range(n):
            number += 1
            qid = f"q{number:03d}"
            a = 0.0 if i < both + only_a else 1.0
            b = 0.0 if i < both or both + only_a <= i < both + only_a + only_b else 1.0
            rows += [("bm25", qid, a), ("dense", qid, b)]
            strata.append((qid, stratum))
    scores = pl.DataFrame(
        rows, schema={"system": pl.Utf8, "query_id": pl.Utf8, "value": pl.Float64}, orient="row"
    )
    return scores, pl.DataFrame(
        strata, schema={"query_id": pl.Utf8, "stratum": pl.Utf8}, orient="row"
    )


# The sampled log: sampled column 40+30+30+25+15+20 = 160 and traffic shares 31,22,18,15,6,8 %.
SAMPLED_LOG_TARGETS = {
    "howto": 40,
    "navigational": 30,
    "error": 30,
    "entity_attr": 25,
    "migration": 15,
    "tail": 20,
}
SAMPLED_LOG_TRAFFIC = {
    "howto": 0.31,
    "navigational": 0.22,
    "error": 0.18,
    "entity_attr": 0.15,
    "migration": 0.06,
    "tail": 0.08,
}
