"""A notebook's evaluation written as an IR researcher writes it, kept type-checked.

``test_notebook_typing.py`` runs ``mypy --strict`` on this file (every name of
``goldset_tui.eval`` must have its real signature for that to pass) and then runs :func:`main`
on the bundled sample data. docs/notebook.md shows the same steps.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd  # type: ignore[import-untyped]  # pandas ships no type information
import polars as pl

from goldset_tui.eval import (
    Measure,
    PairedResult,
    aggregate,
    evaluate,
    evaluate_wide,
    expand_measures,
    mean_scores,
    paired_comparison,
    parse_measure,
    rrf,
)


def main(data: Path) -> dict[str, float]:
    qrels_path, bm25_path = data / "judgments" / "alice.qrels", data / "runs" / "bm25.run"
    # pandas frames with trec_eval's fields, as read_csv gives them.
    qrels = pd.read_csv(qrels_path, sep=" ", names=["query_id", "iter", "doc_id", "grade"])
    bm25 = pd.read_csv(
        bm25_path, sep=" ", names=["query_id", "Q0", "doc_id", "rank", "score", "tag"]
    )
    # A pytrec_eval-style dict for the other run; a path for the qrels the second time.
    minilm: dict[str, dict[str, float]] = {}
    for line in (data / "runs" / "minilm.run").read_text().splitlines():
        qid, _, doc, _, score, _ = line.split()
        minilm.setdefault(qid, {})[doc] = float(score)

    measures: list[str] = expand_measures(["ndcg_cut.10", "map", "recip_rank"])
    ap: Measure = parse_measure("AP")
    means: dict[str, float] = mean_scores(qrels, bm25, [*measures, ap])
    per_query: pl.DataFrame = evaluate(qrels_path, bm25, measures)
    assert aggregate(per_query) == {m: means[m] for m in measures}

    a: pl.Series = evaluate_wide(qrels, bm25, "nDCG@10")["nDCG@10"]
    b: pl.Series = evaluate_wide(str(qrels_path), minilm, "nDCG@10")["nDCG@10"]
    result: PairedResult = paired_comparison(a, b, seed=0, samples=1000)
    fused: pl.DataFrame = rrf({"bm25": bm25, "minilm": minilm})
    fused_means = mean_scores(qrels, fused, "nDCG@10")
    return {
        **means,
        "p_value": result.p_value,
        "mean_diff": result.mean_diff,
        "fused nDCG@10": fused_means["nDCG@10"],
    }
