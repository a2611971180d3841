"""Measure names, and properties every metric must have whatever the data."""

from __future__ import annotations

import random

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldset_tui.errors import InputError
from goldset_tui.eval.measures import parse_measure, parse_measures
from goldset_tui.eval.metrics import aggregate, evaluate, evaluate_wide, mean_scores
from goldset_tui.io.trec import read_run


@pytest.mark.parametrize(
    ("text", "name", "cutoff", "rel", "dcg"),
    [
        ("P@10", "P", 10, 1, "log2"),
        ("P(rel=2)@10", "P", 10, 2, "log2"),
        ("nDCG(dcg='exp-log2')@5", "nDCG", 5, 1, "exp-log2"),
        ('nDCG(dcg="exp-log2")', "nDCG", None, 1, "exp-log2"),
        ("AP(rel=3)", "AP", None, 3, "log2"),
        ("  RR@1 ", "RR", 1, 1, "log2"),
        ("Judged@20", "Judged", 20, 1, "log2"),
    ],
)
def test_parse(text, name, cutoff, rel, dcg):
    m = parse_measure(text)
    assert (m.name, m.cutoff, m.rel, m.dcg) == (name, cutoff, rel, dcg)
    assert str(m) == text.strip()


@pytest.mark.parametrize(
    ("text", "suggestion"),
    [
        ("nDGC@10", "nDCG@10"),
        # The user's cutoff is kept: difflib on the whole text suggested R@100 here.
        ("Recal@1000", "R@1000"),
        ("Precison@5", "P@5"),
        ("ndcg_cutt_20", "nDCG@20"),
        ("recip_rnk", "RR"),
        ("nDCG(rel=2)@10", "nDCG@10"),
        ("P", "P@10"),
        ("NumRet@5", "NumRet"),
        ("Succes@10", "Success@10"),
        ("AP(rel=0)", "AP"),
        ("nDCG(dcg='exp')@5", "nDCG(dcg='exp-log2')@5"),
        # A bad persistence suggests the measure's own default: Compat's is 0.95, not RBP's 0.8.
        ("Compat(p=0)", "Compat(p=0.95)"),
        ("RBP(p=1.5)", "RBP(p=0.8)"),
    ],
)
def test_bad_names_suggest_the_closest(text, suggestion):
    with pytest.raises(InputError) as info:
        parse_measure(text)
    assert f"did you mean {suggestion!r}" in str(info.value)
    assert "\n" not in str(info.value)


ALIASES = [
    # trec_eval
    ("map", "AP"),
    ("ndcg", "nDCG"),
    ("ndcg_cut_10", "nDCG@10"),
    ("P_10", "P@10"),
    ("P.10", "P@10"),
    ("recall_100", "R@100"),
    ("recip_rank", "RR"),
    ("bpref", "Bpref"),
    ("num_rel_ret", "NumRelRet"),
    ("num_q", "NumQ"),
    ("success_10", "Success@10"),
    ("map_cut_100", "AP@100"),
    ("iprec_at_recall_0.10", "IPrec@0.1"),
    ("11pt_avg", "IPrecAvg"),
    ("gm_map", "GMAP"),
    ("set_P", "SetP"),
    ("set_recall", "SetR"),
    ("set_F", "SetF"),
    # ir_measures' own aliases
    ("MAP", "AP"),
    ("NDCG@10", "nDCG@10"),
    ("Recall@1000", "R@1000"),
    ("MRR@10", "RR@10"),
    # ranx
    ("ndcg@10", "nDCG@10"),
    ("ndcg_burges@10", "nDCG(dcg='exp-log2')@10"),
    ("mrr@10", "RR@10"),
    ("map@100", "AP@100"),
    ("precision@10", "P@10"),
    ("recall@100", "R@100"),
    ("hit_rate@5", "Success@5"),
]


@pytest.mark.parametrize(("alias", "canonical"), ALIASES)
def test_other_tools_names_are_aliases(alias, canonical):
    m = parse_measure(alias)
    assert str(m) == canonical
    c = parse_measure(canonical)
    assert (m.name, m.cutoff, m.level, m.rel, m.dcg, m.beta) == (
        c.name,
        c.cutoff,
        c.level,
        c.rel,
        c.dcg,
        c.beta,
    )
    assert m.alias == alias and c.alias == ""


def test_ir_measures_agrees_with_our_alias_table():
    # ir_measures parses its own and trec_eval-like names; where it knows a name, it must
    # mean the measure we read it as.
    ir_measures = pytest.importorskip("ir_measures")
    checked = 0
    for alias, canonical in ALIASES:
        try:
            theirs = str(ir_measures.parse_measure(alias))
        except (ValueError, NameError, SyntaxError, TypeError, AttributeError):
            continue
        assert theirs == canonical, alias
        checked += 1
    assert checked >= 4


def test_parse_measures_keeps_order_and_drops_repeats():
    assert [str(m) for m in parse_measures(["AP", "P@5", "AP"])] == ["AP", "P@5"]


def test_one_measure_spelled_twice_is_scored_once_under_one_name():
    # `-m "nDCG(dcg=exp-log2)@10" -m "nDCG(dcg='exp-log2')@10"` printed the same value twice
    # under two names, and ir_measures' alias NDCG(...) came out without the quotes.
    given = ["nDCG(dcg=exp-log2)@10", "nDCG(dcg='exp-log2')@10", "NDCG(dcg=exp-log2)@10"]
    assert [str(m) for m in parse_measures(given)] == ["nDCG(dcg=exp-log2)@10"]
    assert str(parse_measure("NDCG(dcg=exp-log2)@10")) == "nDCG(dcg='exp-log2')@10"
    assert [str(m) for m in parse_measures(["P@10", "P@010", "P_10"])] == ["P@10"]
    # Apart under -l: the written rel=1 stays 1, P@10 follows the level.
    assert len(parse_measures(["P@10", "P(rel=1)@10"])) == 2


# --- properties -----------------------------------------------------------------------------

DOCS = [f"d{i}" for i in range(12)]


@st.composite
def data(draw):
    qrels = []
    for q in ("q1", "q2", "q3"):
        for d in draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=8)):
            qrels.append((q, d, draw(st.integers(-1, 4))))
    if not qrels:
        qrels.append(("q1", "d0", 1))
    run = []
    for q in ("q1", "q2", "q4"):
        for d in draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=10)):
            run.append((q, d, draw(st.sampled_from([0.0, 1.0, 1.0, 2.5]))))
    if not run:
        run.append(("q1", "d1", 1.0))
    q = pl.DataFrame(
        qrels, schema={"query_id": pl.String, "doc_id": pl.String, "grade": pl.Int64}, orient="row"
    )
    r = pl.DataFrame(
        run, schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}, orient="row"
    )
    return q, r


BOUNDED = [
    "P@3",
    "P(rel=2)@5",
    "R@5",
    "Success@2",
    "RR",
    "RR@3",
    "AP",
    "AP@5",
    "nDCG",
    "nDCG@3",
    "nDCG(dcg='exp-log2')@5",
    "Rprec",
    "Bpref",
    "infAP",
    "Judged@5",
]


@settings(max_examples=60, deadline=None)
@given(data())
def test_bounds_and_every_query_in_the_qrels(qr):
    qrels, run = qr
    per_query = evaluate(qrels, run, BOUNDED + ["NumRet", "NumRelRet"])
    values = per_query.filter(pl.col("measure").is_in(BOUNDED)).get_column("value")
    assert values.is_between(0.0, 1.0 + 1e-12).all()
    assert set(per_query.get_column("query_id")) == set(qrels.get_column("query_id"))  # q4 ignored
    wide = evaluate_wide(qrels, run, ["P@3", "NumRelRet", "NumRet", "RR", "Success@3"])
    assert (wide["NumRelRet"] <= wide["NumRet"]).all()
    assert ((wide["RR"] >= 1 / 3) == (wide["Success@3"] == 1.0)).all()  # first hit within 3
    assert (wide["P@3"] * 3 <= wide["NumRelRet"] + 1e-9).all()


@settings(max_examples=40, deadline=None)
@given(data(), st.randoms(use_true_random=False))
def test_order_of_tied_lines_in_a_run_file_changes_nothing(
    tmp_path_factory, qr, rnd: random.Random
):
    qrels, run = qr
    folder = tmp_path_factory.mktemp("ties")
    lines = [f"{q} Q0 {d} {i} {s} t" for i, (q, d, s) in enumerate(run.rows())]
    shuffled = lines[:]
    rnd.shuffle(shuffled)
    (folder / "a.run").write_text("\n".join(lines) + "\n")
    (folder / "b.run").write_text("\n".join(shuffled) + "\n")
    a, b = read_run(folder / "a.run"), read_run(folder / "b.run")
    assert a.drop("tag").equals(b.drop("tag"))
    measures = BOUNDED + ["NumRelRet"]
    assert evaluate(qrels, a, measures).equals(evaluate(qrels, b, measures))


def test_mean_modes():
    qrels = pl.DataFrame(
        {
            "query_id": ["q1", "q1", "q2", "q3"],
            "doc_id": ["a", "b", "c", "d"],
            "grade": [1, 0, 0, 2],
        },
        schema_overrides={"grade": pl.Int64},
    )
    run = pl.DataFrame(
        {"query_id": ["q1", "q2", "q9"], "doc_id": ["a", "c", "a"], "score": [1.0, 1.0, 1.0]}
    )
    # goldset: queries with a relevant document (q1, q3); q3 is missing from the run and counts 0.
    assert mean_scores(qrels, run, ["AP", "NumRel"]) == {"AP": 0.5, "NumRel": 2.0}
    # trec_eval: queries in both (q1, q2); q2 has no relevant document and counts 0.
    assert mean_scores(qrels, run, ["AP", "NumRel"], trec_eval_compat=True) == {
        "AP": 0.5,
        "NumRel": 1.0,
    }
    # trec_eval -c: every query in the qrels.
    assert aggregate(evaluate(qrels, run, ["AP"])) == {"AP": pytest.approx(1 / 3)}


def test_run_without_rank_column_is_ranked_like_trec_eval():
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["b"], "grade": [1]})
    run = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    assert evaluate_wide(qrels, run, ["RR"])["RR"].item() == 1.0  # tie: "b" > "a" comes first
