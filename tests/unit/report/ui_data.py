"""A small report for the screen tests: 12 queries in 3 strata, bm25, dense and their fusion, top 3
with graded, ungraded (unjudged) documents. Hand-made per-query values; no engine needed."""

from __future__ import annotations

import polars as pl

from goldset_tui.report.pipeline import assemble_report

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


# Issue 12: ids that read alike when cut at the end (the top-k screen at 80x24 showed both
# documents as `pathlib#PurePath.…` and `LA091089-02…`).
LONG_IDS = {
    ("bm25", 1): "pathlib#PurePath.with_suffix",
    ("bm25", 2): "LA091089-0212",
    ("dense", 1): "pathlib#PurePath.with_stem",
    ("dense", 2): "LA091089-0213",
    ("rrf", 1): "pathlib#PurePath.with_segments",
    ("rrf", 2): "LA091089-0214",
}


def make_report_long_ids(query_id: str = "q11"):
    """ui_data's report with ``query_id``'s top k holding LONG_IDS."""
    report = make_report()
    topk = report.topk
    report.topk = topk.with_columns(
        doc_id=pl.struct("system", "query_id", "rank", "doc_id").map_elements(
            lambda r: (
                LONG_IDS.get((r["system"], r["rank"]), r["doc_id"])
                if r["query_id"] == query_id
                else r["doc_id"]
            ),
            return_dtype=pl.Utf8,
        )
    )
    return report
