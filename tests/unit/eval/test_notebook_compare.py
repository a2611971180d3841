"""The notebook's paired comparison gives `goldset compare`'s numbers for every kind of measure.

Before: ``paired_comparison(evaluate_wide(...)["Success@3"], ...)``, the idiom docs/notebook.md
shows, treated the 0/1 measure as graded: interval [0.023, 0.259] and no McNemar where `goldset
compare` prints Tango's [0.042, 0.283] and McNemar's p 0.031, with nothing saying they differ.
And there was no function giving the command's choice for R@k, which is 0/1 exactly when each
query has one relevant document (a fact of the qrels, not of the scores)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy.stats import binomtest

from goldset_tui.cli import main
from goldset_tui.errors import InputError
from goldset_tui.eval import compare, evaluate_wide, paired_comparison

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"
QRELS = str(SAMPLE / "judgments" / "alice.qrels")
BM25, MINILM = str(SAMPLE / "runs" / "bm25.run"), str(SAMPLE / "runs" / "minilm.run")


def _cli(capsys, qrels: str, a: str, b: str, measure: str) -> dict:
    assert main(["compare", qrels, a, b, "-m", measure, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    return doc[0] if isinstance(doc, list) else doc


def _same(result, doc: dict) -> None:
    assert result.n == doc["queries"]
    assert result.mean_diff == pytest.approx(doc["mean_diff"])
    assert list(result.ci95) == pytest.approx(doc["ci95"])
    assert result.ci_method == doc["ci_method"]
    assert result.p_value == pytest.approx(doc["p_value"])
    assert result.mcnemar_p == (doc.get("mcnemar_p") and pytest.approx(doc["mcnemar_p"]))


@pytest.mark.parametrize("measure", ["Success@3", "nDCG@10", "R@10", "P@1"])
def test_compare_is_the_command_lines(capsys, measure):
    _same(compare(QRELS, BM25, MINILM, measure), _cli(capsys, QRELS, BM25, MINILM, measure))


def test_the_documented_idiom_reads_a_binary_measure_from_the_column_name(capsys):
    a = evaluate_wide(QRELS, BM25, "Success@3")["Success@3"]
    b = evaluate_wide(QRELS, MINILM, "Success@3")["Success@3"]
    result = paired_comparison(a, b)
    _same(result, _cli(capsys, QRELS, BM25, MINILM, "Success@3"))
    assert result.discordant == (6, 0)  # six queries only bm25 answers in its top 3
    assert result.mcnemar_p == pytest.approx(binomtest(6, 6, 0.5).pvalue)


def test_recall_with_one_relevant_document_per_query_is_binary(tmp_path, capsys):
    (tmp_path / "q").write_text("".join(f"q{i} 0 d{i} 1\nq{i} 0 x{i} 0\n" for i in range(12)))
    a = "".join(f"q{i} Q0 d{i} 1 2.0 a\n" for i in range(10))  # found for q0-q9
    b = "".join(f"q{i} Q0 d{i} 1 2.0 b\n" for i in range(4))  # found for q0-q3
    (tmp_path / "a").write_text(a)
    (tmp_path / "b").write_text(b)
    paths = [str(tmp_path / n) for n in ("q", "a", "b")]
    result = compare(*paths, "R@10")
    assert result.ci_method == "paired-score-t" and result.discordant == (6, 0)
    _same(result, _cli(capsys, *paths, "R@10"))


def test_gmap_is_refused():
    with pytest.raises(InputError, match="geometric"):
        compare(QRELS, BM25, MINILM, "GMAP")


def test_an_alias_names_the_same_measure(capsys):
    # ranx's spelling: evaluate_wide names the column canonically (nDCG@10), compare finds it.
    _same(compare(QRELS, BM25, MINILM, "ndcg@10"), _cli(capsys, QRELS, BM25, MINILM, "nDCG@10"))
    assert list(evaluate_wide(QRELS, BM25, "ndcg@10").columns) == ["query_id", "nDCG@10"]
