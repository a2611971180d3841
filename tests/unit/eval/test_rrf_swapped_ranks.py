"""docs/report.md says rrf over two runs shows many `=` because 1/(60+a) + 1/(60+b) does not
change when the ranks swap: two documents at ranks (1, 3) and (3, 1) tie, and the reading view
marks both ranks as tied (the order then comes from the document ids, as in trec_eval)."""

from __future__ import annotations

from fractions import Fraction

import polars as pl

from goldset_tui.report.reading import query_rankings, tied_ranks


def run(docs: list[str]) -> pl.DataFrame:
    n = len(docs)
    return pl.DataFrame(
        {
            "query_id": ["q"] * n,
            "doc_id": docs,
            "score": [float(n - i) for i in range(n)],
            "rank": list(range(1, n + 1)),
        }
    )


def test_swapped_ranks_tie_under_rrf_and_are_marked() -> None:
    a = run(["x", "m", "y", "n"])  # x at 1, y at 3
    b = run(["y", "n", "x", "m"])  # y at 1, x at 3: the same two ranks swapped
    rankings = query_rankings({"a": a, "b": b}, "q", fused="rrf")
    fused = dict(rankings["rrf"].select("doc_id", "score").iter_rows())
    # By hand, in exact fractions: both 1/61 + 1/63, and m, n both 1/62 + 1/64.
    assert Fraction(1, 61) + Fraction(1, 63) == Fraction(1, 63) + Fraction(1, 61)
    assert fused["x"] == fused["y"] == float(Fraction(1, 61) + Fraction(1, 63))
    assert fused["m"] == fused["n"] == float(Fraction(1, 62) + Fraction(1, 64))
    # Every rank of the fused top 4 ties a neighbour; neither input run has a tie.
    assert tied_ranks(rankings, 4) == {("rrf", 1), ("rrf", 2), ("rrf", 3), ("rrf", 4)}
    # trec_eval's order among equal scores: document id descending.
    assert rankings["rrf"].get_column("doc_id").to_list() == ["y", "x", "n", "m"]
