"""The worked example of docs/report.md's decisions section, as per-query data: the 300-query
table of two retrievers (tests/unit/report/worked_examples.py) with a fused run whose strata
read as the fused table of the same example (identifier 0.91, paraphrase 0.87 rounded, negation
unchanged, 0.86 overall), and traffic shares equal to the set's proportions (exact identifier
54 / 300 = 18%)."""

from __future__ import annotations

from fractions import Fraction

import polars as pl

from .worked_examples import TWO_RETRIEVERS, two_retrievers_frames

# stratum: fused hits. 49 + 55 + 19 + 83 + 44 + 8 = 258 of 300 = 0.86; each at most the
# stratum's oracle (n - missed by both: 52, 56, 19, 86, 44, 12).
FUSED_HITS = {
    "exact_identifier": 49,
    "short_keyword": 55,
    "misspelled": 19,
    "paraphrase": 83,
    "multi_entity": 44,
    "negation": 8,
}
SHARES = {s: n / 300 for s, (n, *_rest) in TWO_RETRIEVERS.items()}
EXACT = {s: Fraction(n, 300) for s, (n, *_rest) in TWO_RETRIEVERS.items()}


def frames() -> tuple[pl.DataFrame, pl.DataFrame]:
    """(scores with bm25, dense and rrf; strata). The fused run hits the last F queries of each
    stratum, which the layout of two_retrievers_frames fills with queries one system hits."""
    scores, strata = two_retrievers_frames()
    fused = []
    for stratum, part in strata.group_by("stratum", maintain_order=True):
        ids = part.get_column("query_id").to_list()
        hits = FUSED_HITS[str(stratum[0])]
        fused += [("rrf", q, 1.0 if i >= len(ids) - hits else 0.0) for i, q in enumerate(ids)]
    extra = pl.DataFrame(
        fused, schema={"system": pl.Utf8, "query_id": pl.Utf8, "value": pl.Float64}, orient="row"
    )
    return pl.concat([scores, extra]), strata


def traffic(shares: dict[str, float] | None = None) -> pl.DataFrame:
    s = shares or SHARES
    return pl.DataFrame({"stratum": list(s), "share": list(s.values())})


def now_shares() -> dict[str, float]:
    """The other log: exact identifiers at 45%, the others rescaled in proportion."""
    rest = sum(v for s, v in SHARES.items() if s != "exact_identifier")
    return {s: 0.45 if s == "exact_identifier" else v * 0.55 / rest for s, v in SHARES.items()}
