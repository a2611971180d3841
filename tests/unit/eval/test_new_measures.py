"""The measures and modes added for trec_eval parity, against independent implementations.

- SetP, SetR, SetF and trec_eval's -J against pytrec_eval (trec_eval 9's code) on generated
  collections (ties, negative grades, queries without relevant documents);
- ERR@k against gdeval.pl, the TREC Web track script, run with this machine's perl through
  ir_measures' gdeval provider;
- RBP and its residual against cwl-eval (PyPI), on ir_measures' cwl test files.

IPrec and IPrecAvg are checked against trec_eval 10's printed values in
test_against_trec_eval.py and test_trec_eval_modes.py, not here: pytrec_eval carries trec_eval
9's recall cut-offs (add 0.9 and truncate), which trec_eval 10 replaced by rounding.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_against_peers import collections, frames, with_rel

from goldset_tui.eval.metrics import evaluate_wide
from goldset_tui.eval.querysets import cut_run
from goldset_tui.io.trec import read_qrels, read_run

SET_PAIRS = {"SetP": "set_P", "SetR": "set_recall", "SetF": "set_F", "NumRelRet": "num_rel_ret"}
J_PAIRS = {
    "P@5": "P_5",
    "AP": "map",
    "nDCG@3": "ndcg_cut_3",
    "RR": "recip_rank",
    "Bpref": "bpref",
    "NumRet": "num_ret",
    "R@5": "recall_5",
}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from([1, 2]))
def test_set_measures_equal_pytrec_eval(data, rel):
    qrels, run = data
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"set_P", "set_recall", "set_F", "num_rel_ret"}, relevance_level=rel
    )
    expected = evaluator.evaluate(run)
    names = {with_rel(ours, rel): theirs for ours, theirs in SET_PAIRS.items()}
    got = evaluate_wide(*frames(qrels, run), list(names), only_run_queries=True)
    assert got.height == len(expected)
    for row in got.iter_rows(named=True):
        for ours, theirs in names.items():
            assert row[ours] == pytest.approx(expected[row["query_id"]][theirs], abs=1e-9)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from([1, 2]))
def test_judged_only_equals_pytrec_eval_judged_docs_only(data, rel):
    qrels, run = data
    measures = {"P.5", "map", "ndcg_cut.3", "recip_rank", "bpref", "num_ret", "recall.5"}
    expected = pytrec_eval.RelevanceEvaluator(
        qrels, measures, relevance_level=rel, judged_docs_only_flag=True
    ).evaluate(run)
    q, r = frames(qrels, run)
    names = {with_rel(ours, rel): theirs for ours, theirs in J_PAIRS.items()}
    # A query whose documents are all unjudged leaves -J's run empty: it still counts (0s).
    got = evaluate_wide(q, cut_run(r, q, judged_only=True), list(names))
    got = {row["query_id"]: row for row in got.iter_rows(named=True)}
    assert set(expected) <= set(got)
    for qid, values in expected.items():
        for ours, theirs in names.items():
            assert got[qid][ours] == pytest.approx(values[theirs], abs=1e-9), (ours, qid)


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval.pl needs perl")
@pytest.mark.parametrize("k", [1, 3, 5, 20])
def test_err_equals_gdeval(k):
    ir_measures = pytest.importorskip("ir_measures")
    # gdeval wants numeric topics and grades <= 4; the run has no score ties (gdeval breaks them
    # by document id descending, as trec_eval, but its numeric topic sort is its own).
    qrels = {
        "1": {"a": 4, "b": 0, "c": 2, "d": 1, "e": 3, "f": -1},
        "2": {"x": 1, "y": 2, "z": 0},
        "3": {"m": 0, "n": 0},
        "4": {"p": 3, "q": 3, "r": 1},
    }
    run = {
        "1": {"b": 0.9, "a": 0.8, "g": 0.7, "c": 0.6, "d": 0.5, "f": 0.45, "e": 0.4},
        "2": {"z": 5.0, "w": 4.0, "x": 3.0, "y": 2.0},
        "3": {"m": 1.0},
        "4": {"r": 3.0, "q": 2.0, "p": 1.0},
    }
    measure = ir_measures.parse_measure(f"ERR@{k}")
    expected = {m.query_id: m.value for m in ir_measures.gdeval.iter_calc([measure], qrels, run)}
    assert set(expected) == {"1", "2", "3", "4"}
    got = evaluate_wide(*frames(qrels, run), [f"ERR@{k}"])
    values = dict(got.iter_rows())
    for qid, value in expected.items():
        assert values[qid] == pytest.approx(value, abs=1e-5)  # gdeval prints 5 decimals


def test_err_by_hand():
    # Chapelle et al. 2009, with gdeval's R = (2^g - 1) / 16: grades 3, 0, 1 at ranks 1-3.
    # ERR@3 = R1 + (1 - R1) R3 / 3 = 7/16 + (9/16)(1/16)/3.
    q, r = frames({"q": {"a": 3, "b": 0, "c": 1}}, {"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    got = evaluate_wide(q, r, ["ERR@3", "ERR@1"]).row(0, named=True)
    assert got["ERR@3"] == pytest.approx(7 / 16 + (9 / 16) * (1 / 16) / 3, abs=1e-15)
    assert got["ERR@1"] == pytest.approx(7 / 16, abs=1e-15)


def _cwl(peers: Path, p: float, tmp_path: Path) -> dict[str, tuple[float, float]]:
    metrics = tmp_path / "metrics.txt"
    metrics.write_text(f"RBPCWLMetric({p})\n")
    cwl_eval = Path(sys.executable).with_name("cwl-eval")
    if not cwl_eval.exists():
        pytest.skip("cwl-eval is not installed (pip install '.[test]')")
    done = subprocess.run(
        [str(cwl_eval), str(peers / "cwl.qrels"), str(peers / "cwl.run"), "-m", str(metrics), "-r"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,  # cwl-eval writes cwl.log in its working folder
    )
    out = {}
    for line in done.stdout.splitlines():
        fields = line.split("\t")
        # topic, metric, EU, ETU, EC, ETC, ED, then the residuals of each
        out[fields[0]] = (float(fields[2]), float(fields[7]))
    return out


@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
def test_rbp_and_residual_equal_cwl_eval(peers, tmp_path, p):
    folder = peers / "ir_measures"
    expected = _cwl(folder, p, tmp_path)
    qrels, run = read_qrels(folder / "cwl.qrels"), read_run(folder / "cwl.run")
    got = evaluate_wide(qrels, run, [f"RBP(p={p})", f"RBPResid(p={p})"], only_run_queries=True)
    assert got.height == len(expected) == 3
    for qid, rbp, resid in got.iter_rows():
        # cwl-eval prints 4 decimals; it pads the ranking to depth 1000, whose tail p^1000 is
        # below 1e-22 here.
        assert rbp == pytest.approx(expected[qid][0], abs=5e-5)
        assert resid == pytest.approx(expected[qid][1], abs=5e-5)


def test_rbp_by_hand():
    # Moffat & Zobel 2008: RBP = (1 - p) sum_i r_i p^(i-1). Relevant at ranks 1 and 3, an
    # unjudged document at rank 2, 3 documents retrieved: residual = (1-p) p + p^3.
    q, r = frames({"q": {"a": 1, "c": 2, "d": 0}}, {"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    p = 0.8
    got = evaluate_wide(q, r, [f"RBP(p={p})", f"RBPResid(p={p})"]).row(0, named=True)
    assert got[f"RBP(p={p})"] == pytest.approx((1 - p) * (1 + p**2), abs=1e-15)
    assert got[f"RBPResid(p={p})"] == pytest.approx((1 - p) * p + p**3, abs=1e-15)
    assert pl.Series([got[f"RBP(p={p})"]]).is_finite().all()


def _ir_measures_compat(measure: str, qrels, run) -> dict[str, float]:
    ir_measures = pytest.importorskip("ir_measures")
    m = ir_measures.parse_measure(measure.replace("false", "False"))
    return {x.query_id: x.value for x in ir_measures.compat.iter_calc([m], qrels, run)}


@pytest.mark.parametrize(
    "measure", ["Compat", "Compat(p=0.8)", "Compat(p=0.5,normalize=false)", "Compat(p=0.99)"]
)
def test_compat_equals_ir_measures_on_its_test_files(peers, measure):
    # ir_measures' compat test data: graded up to 50, 89 and 200 relevant, ~1,000 retrieved.
    ir_measures = pytest.importorskip("ir_measures")
    folder = peers / "ir_measures"
    expected = _ir_measures_compat(
        measure,
        ir_measures.read_trec_qrels(str(folder / "compat.qrels")),
        ir_measures.read_trec_run(str(folder / "compat.run")),
    )
    qrels, run = read_qrels(folder / "compat.qrels"), read_run(folder / "compat.run")
    got = dict(evaluate_wide(qrels, run, [measure], only_run_queries=True).iter_rows())
    assert set(got) == set(expected) == {"31_1", "31_2"}
    for qid, value in expected.items():
        assert got[qid] == pytest.approx(value, abs=1e-12)  # prefix sums cancel at ~1e-14


@pytest.mark.parametrize(
    ("measure", "n"), [("Compat(p=0.95,normalize=false)", 2), ("Compat(p=0.5,normalize=false)", 20)]
)
def test_compat_of_a_perfect_ranking_is_one_and_never_more(tmp_path, capsys, measure, n):
    # The run is the ideal ranking itself (every document relevant, in order): at each depth d
    # the overlap is d / d = 1, so the raw RBO is sum p^(d-1) over d <= n, exactly its own
    # normaliser (1 - p^n) / (1 - p): 1. For n = 2, p = 0.95: (1 + 0.95) / 1.95. The prefix sums
    # gave 1.0000000000000007 (n = 2) and 1.0000000000000036 (n = 20), printed as such in JSON.
    import json

    from goldset_tui.cli import main

    (tmp_path / "q.qrels").write_text("".join(f"q 0 d{i:02} 1\n" for i in range(n)))
    (tmp_path / "r.run").write_text("".join(f"q Q0 d{i:02} {i} {n - i} r\n" for i in range(n)))
    argv = ["eval", str(tmp_path / "q.qrels"), str(tmp_path / "r.run"), "-m", measure, "-q"]
    assert main([*argv, "--format", "json"]) == 0
    run = json.loads(capsys.readouterr().out)["runs"]["r"]
    assert run["per_query"]["q"][measure] == 1.0
    assert run["mean"][measure] == 1.0


@st.composite
def untied(draw):
    # Distinct positive scores: ir_measures breaks ties by doc id ascending (trec_eval: descending)
    # and gives unretrieved documents score 0 in the ideal; with these, both orders agree.
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    docs = [f"d{i}" for i in range(12)]
    for q in ("q1", "q2", "q3"):
        judged = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=8))
        qrels[q] = {d: draw(st.integers(0, 3)) for d in judged}
        ranked = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=10))
        run[q] = {d: float(len(ranked) - i) for i, d in enumerate(ranked)}
    return qrels, run


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(untied(), st.sampled_from(["Compat", "Compat(p=0.7)", "Compat(p=0.9,normalize=false)"]))
def test_compat_equals_ir_measures_generated(data, measure):
    qrels, run = data
    expected = _ir_measures_compat(measure, qrels, run)
    got = dict(evaluate_wide(*frames(qrels, run), [measure], only_run_queries=True).iter_rows())
    assert set(got) == set(expected)
    for qid, value in expected.items():
        assert got[qid] == pytest.approx(value, abs=1e-12), qid


@st.composite
def diversity(draw):
    # Diversity qrels (query subtopic doc grade) and a run without score ties (ndeval's Python
    # wrapper breaks ties by doc id ascending, trec_eval's order is descending).
    qrels, run = [], []
    docs = [f"d{i}" for i in range(10)]
    for q in ("1", "2", "3"):
        for d in draw(st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=7)):
            for s in draw(st.lists(st.sampled_from("123"), unique=True, min_size=1, max_size=3)):
                qrels.append((q, s, d, draw(st.integers(0, 2))))
        ranked = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=10))
        run += [(q, d, float(len(ranked) - i)) for i, d in enumerate(ranked)]
    return qrels, run


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    diversity(), st.sampled_from([5, 10, 20]), st.sampled_from([1, 2]), st.sampled_from([0.5, 0.8])
)
def test_alpha_ndcg_equals_ndeval(data, k, rel, alpha):
    pyndeval = pytest.importorskip("pyndeval")
    qrels, run = data
    expected = pyndeval.RelevanceEvaluator(
        qrels, [f"alpha-nDCG@{k}"], relevance_level=rel, alpha=alpha
    ).evaluate(run)
    sub = pl.DataFrame(qrels, schema=["query_id", "subtopic", "doc_id", "grade"], orient="row")
    r = pl.DataFrame(run, schema=["query_id", "doc_id", "score"], orient="row")
    name = f"alpha_nDCG(rel={rel},alpha={alpha})@{k}"
    got = dict(evaluate_wide(sub, r, [name]).iter_rows())
    for qid, values in expected.items():
        assert got[qid] == pytest.approx(values[f"alpha-nDCG@{k}"], abs=1e-12), qid


def test_alpha_ndcg_from_the_command_line(tmp_path, capsys):
    from goldset_tui.cli import main

    # Two subtopics; d1 covers both, d2 only the first, d3 only the second. The run d2, d1, d3:
    # gains 1, then 0.5 + 1, then 0.5 (alpha 0.5); the greedy ideal d1, d3, d2: 2, 0.5, 0.5.
    (tmp_path / "div.qrels").write_text("1 1 d1 1\n1 2 d1 1\n1 1 d2 1\n1 2 d3 1\n")
    (tmp_path / "r.run").write_text("1 Q0 d2 1 3 r\n1 Q0 d1 2 2 r\n1 Q0 d3 3 1 r\n")
    code = main(
        [
            "eval",
            str(tmp_path / "div.qrels"),
            str(tmp_path / "r.run"),
            "-m",
            "alpha_nDCG@3",
            "-m",
            "AP",
        ]
    )
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    from math import log2

    dcg = 1 + 1.5 / log2(3) + 0.5 / 2
    ideal = 2 + 0.5 / log2(3) + 0.5 / 2
    assert out[0].split("\t")[-1] == f"{dcg / ideal:.4f}"
    assert out[1].split("\t")[-1] == "1.0000"  # AP on one grade a document: all three relevant
