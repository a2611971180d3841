"""Generated edge cases checked against pytrec_eval (trec_eval's code), ir_measures and ranx.

Hypothesis builds small qrels and runs with the awkward cases on purpose: score ties, grades from
-1 (pooled, unjudged) to 3, judged queries with no relevant document, queries only in the run,
documents outside the pool, cut-offs beyond the run's length and very long document ids.
"""

from __future__ import annotations

import polars as pl
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goldset_tui.eval.metrics import evaluate_wide

LONG = "L" * 300  # a very long document id
DOCS = ["a", "b", "c", "d", "e", "f", "g", LONG]
QUERIES = ["q1", "q2", "q3"]

# Our name -> pytrec_eval's, for a relevance level.
PAIRS = {
    "P@1": "P_1",
    "P@5": "P_5",
    "P@20": "P_20",
    "R@5": "recall_5",
    "R@20": "recall_20",
    "Success@1": "success_1",
    "Success@5": "success_5",
    "RR": "recip_rank",
    "AP": "map",
    "AP@5": "map_cut_5",
    "nDCG": "ndcg",
    "nDCG@3": "ndcg_cut_3",
    "nDCG@20": "ndcg_cut_20",
    "Rprec": "Rprec",
    "Bpref": "bpref",
    "infAP": "infAP",
    "NumRet": "num_ret",
    "NumRel": "num_rel",
    "NumRelRet": "num_rel_ret",
}
TREC_MEASURES = {
    "P.1,5,20",
    "recall.5,20",
    "success.1,5",
    "recip_rank",
    "map",
    "map_cut.5",
    "ndcg",
    "ndcg_cut.3,20",
    "Rprec",
    "bpref",
    "infAP",
    "num_ret",
    "num_rel",
    "num_rel_ret",
}


def with_rel(name: str, rel: int) -> str:
    if rel == 1 or name.startswith("nDCG") or name == "NumRet":
        return name
    head, _, cut = name.partition("@")
    return f"{head}(rel={rel})" + (f"@{cut}" if cut else "")


@st.composite
def collections(draw):
    qrels: dict[str, dict[str, int]] = {}
    for q in QUERIES:
        docs = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=6))
        # The first grade is never negative: pytrec_eval (and trec_eval 9's code in it) crashes
        # on a query whose judgments are all negative; test_all_negative_query covers it.
        qrels[q] = {d: draw(st.integers(0 if i == 0 else -1, 3)) for i, d in enumerate(docs)}
    run: dict[str, dict[str, float]] = {}
    for q in QUERIES + ["only_in_run"]:
        docs = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=8))
        # Few distinct scores, so that ties are common.
        run[q] = {d: draw(st.sampled_from([0.5, 1.0, 1.5, 2.0])) for d in docs}
    return qrels, run


def frames(qrels, run):
    q = pl.DataFrame(
        [(qid, d, g) for qid, docs in qrels.items() for d, g in docs.items()],
        schema={"query_id": pl.String, "doc_id": pl.String, "grade": pl.Int64},
        orient="row",
    )
    r = pl.DataFrame(
        [(qid, d, s) for qid, docs in run.items() for d, s in docs.items()],
        schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64},
        orient="row",
    )
    return q, r


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from([1, 2]))
def test_per_query_values_equal_pytrec_eval(data, rel):
    qrels, run = data
    expected = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES, relevance_level=rel).evaluate(
        run
    )
    names = {with_rel(ours, rel): theirs for ours, theirs in PAIRS.items()}
    q, r = frames(qrels, run)
    got = evaluate_wide(q, r, list(names), only_run_queries=True)
    assert sorted(got.get_column("query_id")) == sorted(expected)  # run-only query ignored
    for row in got.iter_rows(named=True):
        for ours, theirs in names.items():
            assert row[ours] == pytest.approx(expected[row["query_id"]][theirs], abs=1e-9), (
                ours,
                row["query_id"],
            )


@settings(max_examples=60, deadline=None)
@given(collections(), st.integers(1, 10))
def test_rr_at_k_is_rr_of_the_run_cut_at_k(data, k):
    # RR@k (ir_measures) has no trec_eval counterpart; it is trec_eval's recip_rank on the run
    # truncated to its first k documents in trec_eval order (score desc, then doc id desc).
    qrels, run = data
    cut = {
        q: dict(sorted(docs.items(), key=lambda kv: (-kv[1], tuple(-ord(c) for c in kv[0])))[:k])
        for q, docs in run.items()
    }
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(cut)
    q, r = frames(qrels, run)
    got = evaluate_wide(q, r, [f"RR@{k}"], only_run_queries=True)
    for qid, value in got.iter_rows():
        assert value == pytest.approx(expected[qid]["recip_rank"], abs=1e-12)


def test_judged_equals_ir_measures_without_ties_or_negative_grades():
    import ir_measures

    # ir_measures breaks score ties by ascending document id and counts a negative grade as
    # judged; trec_eval (and goldset) do neither, so this fixture has no ties and no -1.
    qrels = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"x": 0}, "q3": {"m": 3, "n": 0, "o": 0}}
    run = {
        "q1": {"a": 0.9, "z": 0.8, "b": 0.7, "y": 0.1},
        "q2": {"x": 2.0, "w": 1.0},
        "q3": {"m": 1.0},
    }
    measures = [
        ir_measures.parse_measure(m) for m in ("Judged@1", "Judged@2", "Judged@3", "Judged@10")
    ]
    expected = {
        (m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrels, run)
    }
    q, r = frames(qrels, run)
    got = evaluate_wide(q, r, [str(m) for m in measures], only_run_queries=True)
    checked = 0
    for row in got.iter_rows(named=True):
        for m in measures:
            assert row[str(m)] == pytest.approx(expected[(row["query_id"], str(m))], abs=1e-12)
            checked += 1
    assert checked == 12


def test_exp_log2_ndcg_at_k_equals_ranx_ndcg_burges():
    # Values printed by ranx 0.3 (`evaluate(..., ["ndcg_burges@3", "ndcg_burges@5"],
    # return_mean=False)`) on this fixture (no ties, no negative grades). Kept as constants
    # because ranx's first call compiles with numba for ~30 s.
    qrels = {
        "q1": {"a": 3, "b": 0, "c": 2, "d": 1, "e": 3},
        "q2": {"x": 1, "y": 2, "z": 0},
        "q3": {"m": 2, "n": 2, "o": 1},
    }
    run = {
        "q1": {"b": 0.9, "a": 0.8, "f": 0.7, "c": 0.6, "d": 0.5, "g": 0.4},
        "q2": {"z": 5.0, "w": 4.0, "x": 3.0},
        "q3": {"o": 1.0, "m": 0.5},
    }
    ranx = {
        "nDCG(dcg='exp-log2')@3": [0.3419274142, 0.1377057762, 0.5364180058],
        "nDCG(dcg='exp-log2')@5": [0.4566798791, 0.1377057762, 0.5364180058],
        "nDCG(dcg='exp-log2')": [0.4566798791, 0.1377057762, 0.5364180058],
    }
    got = evaluate_wide(*frames(qrels, run), list(ranx))
    for name, values in ranx.items():
        assert got.get_column(name).to_list() == pytest.approx(values, abs=1e-9)


def test_all_negative_query_scores_zero_but_counts_what_it_retrieved():
    # No reference tool survives this input (pytrec_eval crashes), so the values are the
    # definitions: nothing is relevant, nothing is judged.
    q, r = frames({"q": {"a": -1, "b": -1}}, {"q": {"a": 1.0, "c": 0.5}})
    got = evaluate_wide(
        q, r, ["AP", "nDCG@10", "Bpref", "infAP", "Judged@2", "NumRet", "NumRel"]
    ).row(0, named=True)
    assert got == {
        "query_id": "q",
        "AP": 0.0,
        "nDCG@10": 0.0,
        "Bpref": 0.0,
        "infAP": 0.0,
        "Judged@2": 0.0,
        "NumRet": 2.0,
        "NumRel": 0.0,
    }
