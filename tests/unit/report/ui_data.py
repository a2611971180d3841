"""A small report for the screen tests: 12 queries in 3 strata, bm25, dense and their fusion, top 3
with graded, ungraded (unjudged) documents. Hand-made per-query values; no engine needed."""

from __future__ import annotations

import polars as pl

from goldset_tui.eval.report import assemble_report

STRATA = ["identifier"] * 5 + ["paraphrase"] * 4 + ["negation"] * 3
BM25 = [1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0]
DENSE = [1, 0, 1, 0, 1, 1, 1, 1, 1, 0, 0, 0]
RRF = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0]


def make_report(hostile: bool = False):
    qids = [f"q{i:02d}" for i in range(1, 13)]
    strata_names = [("[b]neg\x1b[31m[/b]" if hostile and s == "negation" else s) for s in STRATA]
    scores = pl.DataFrame(
        {
            "system": ["bm25"] * 12 + ["dense"] * 12 + ["rrf"] * 12,
            "query_id": qids * 3,
            "value": [float(v) for v in BM25 + DENSE + RRF],
        }
    )
    strata = pl.DataFrame({"query_id": qids, "stratum": strata_names})
    report = assemble_report(
        scores,
        strata,
        metric="Success@3",
        fused="rrf",
        judged={"bm25": 0.9, "dense": 0.7, "rrf": 0.8},
        samples=50,
    )
    rows = []
    for system, values in (("bm25", BM25), ("dense", DENSE), ("rrf", RRF)):
        for qid, v in zip(qids, values, strict=True):
            for rank in (1, 2, 3):
                doc = f"{system[0]}{qid}-{rank}"
                # The relevant document sits at rank 1 of a hit; rank 3 is never judged.
                grade = (2 if v else 0) if rank == 1 else (0 if rank == 2 else None)
                rows.append((system, qid, rank, doc, grade))
    report.topk = pl.DataFrame(
        rows,
        schema={
            "system": pl.Utf8,
            "query_id": pl.Utf8,
            "rank": pl.Int64,
            "doc_id": pl.Utf8,
            "grade": pl.Int64,
        },
        orient="row",
    )
    return report


def make_topics() -> pl.DataFrame:
    qids = [f"q{i:02d}" for i in range(1, 13)]
    return pl.DataFrame(
        {"query_id": qids, "query": [f"how do I do thing {i}" for i in range(1, 13)]}
    )
