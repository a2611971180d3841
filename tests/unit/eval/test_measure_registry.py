"""Adding a measure is one registry entry: a measure registered here, in the test alone, is parsed,
computed by both engines, accepted by `goldset eval` (its trec_eval name too) and `goldset report`,
listed in `goldset eval --help`, and gone once it is unregistered.

The toy measure, FirstRelGrade, is the grade of the highest-ranked relevant document (0 when none
is retrieved). Its expected values are computed here from the files, in trec_eval's order (score
descending, ties by document id descending), independently of goldset's readers and engines.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from statistics import mean

import pytest

from goldset_tui.cli import main
from goldset_tui.errors import InputError
from goldset_tui.eval.aliases import resolve
from goldset_tui.eval.measure_kind import binary_by_name, is_bounded_measure
from goldset_tui.eval.measures import parse_measure
from goldset_tui.eval.metrics import evaluate, mean_scores
from goldset_tui.io.trec import read_qrels, read_run
from goldset_tui.measures import Entry, RanxName, TrecName, entries, register, unregister

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"
QRELS = SAMPLE / "judgments" / "alice.qrels"
RUNS = {"bm25": SAMPLE / "runs" / "bm25.run", "minilm": SAMPLE / "runs" / "minilm.run"}


def _first_rel_grade_exprs(m, key):
    import polars as pl

    grade = pl.col("grade").filter(pl.col(f"rel{m.rel}")).first()
    return [grade.alias(key)], pl.col(key)


def _first_rel_grade(m, q) -> float:
    return next((float(g) for g in q.found if g >= m.rel), 0.0)


TOY = Entry(
    "FirstRelGrade",
    "none",
    frozenset({"rel"}),
    ("FirstRelGrade",),
    ("FirstRelGrade",),
    bounds=(0.0, None),
    polars=_first_rel_grade_exprs,
    kernel=_first_rel_grade,
    trec_eval=(TrecName("first_rel_grade"),),
)


@pytest.fixture
def toy() -> Iterator[Entry]:
    register(TOY)
    try:
        yield TOY
    finally:
        unregister(TOY.name)


def _expected(run_path: Path) -> dict[str, float]:
    """FirstRelGrade of every query with a relevant document, from the files by hand."""
    grades: dict[str, dict[str, int]] = {}
    for line in QRELS.read_text().splitlines():
        qid, _, doc, grade = line.split()
        grades.setdefault(qid, {})[doc] = int(grade)
    ranked: dict[str, list[tuple[float, str]]] = {}
    for line in run_path.read_text().splitlines():
        qid, _, doc, _, score, _ = line.split()
        ranked.setdefault(qid, []).append((float(score), doc))
    out = {}
    for qid, docs in grades.items():
        if max(docs.values()) < 1:
            continue
        order = sorted(ranked.get(qid, []), reverse=True)  # score, then doc id, descending
        out[qid] = next((float(docs[d]) for _, d in order if docs.get(d, 0) >= 1), 0.0)
    return out


def test_unregistered_it_is_unknown():
    with pytest.raises(InputError, match="FirstRelGrade"):
        parse_measure("FirstRelGrade")


def test_the_library_computes_a_registered_measure(toy):
    expected = _expected(RUNS["bm25"])
    assert len(set(expected.values())) > 2  # grades 1, 2 and 3 occur: not a 0/1 measure
    qrels, run = read_qrels(QRELS), read_run(RUNS["bm25"])
    per_query = evaluate(qrels, run, ["FirstRelGrade"])
    got = {q: v for q, v in per_query.select("query_id", "value").iter_rows() if q in expected}
    assert got == pytest.approx(expected)
    assert mean_scores(qrels, run, ["FirstRelGrade"]) == pytest.approx(
        {"FirstRelGrade": mean(expected.values())}
    )
    assert not is_bounded_measure("FirstRelGrade") and binary_by_name("FirstRelGrade") is False


def test_goldset_eval_scores_it_under_both_names(toy, capsys):
    # Small files: the plain-Python kernel scores them (the library test above used Polars).
    assert main(["eval", str(QRELS), str(RUNS["bm25"]), "-m", "FirstRelGrade", "-q"]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    got = {q.strip(): float(v) for name, q, v in lines if name.strip() == "FirstRelGrade"}
    expected = _expected(RUNS["bm25"])
    assert got.pop("all") == pytest.approx(mean(expected.values()), abs=5e-5)
    assert got == {q: pytest.approx(v) for q, v in expected.items() if q in got}
    argv = ["eval", "--trec-eval-compat", str(QRELS), str(RUNS["bm25"]), "-m", "first_rel_grade"]
    assert main(argv) == 0
    assert capsys.readouterr().out.split()[:2] == ["first_rel_grade", "all"]


def test_goldset_report_accepts_it(toy, capsys):
    runs = [f"--run={name}={path}" for name, path in RUNS.items()]
    argv = ["report", "--qrels", str(QRELS), *runs, "--strata", str(SAMPLE / "strata.csv")]
    code = main([*argv, "--metric", "FirstRelGrade", "--samples", "50", "--format", "json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["metric"] == "FirstRelGrade"


def test_goldset_eval_help_lists_it(toy, capsys):
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    assert "FirstRelGrade" in capsys.readouterr().out


def test_unregistered_again_it_is_gone(toy):
    unregister(TOY.name)
    try:
        with pytest.raises(InputError):
            parse_measure("FirstRelGrade")
    finally:
        register(TOY)  # for the fixture to remove


@pytest.mark.parametrize("entry", list(entries()), ids=lambda e: e.name)
def test_every_entry_answers_to_its_names(entry):
    # What a new entry is checked for without a line of its own: its listed names parse to it,
    # each other tool's name reads as it, and trec_eval's name comes back out.
    for text in entry.examples:
        assert parse_measure(text).name == entry.name
    assert all(text.startswith(entry.name) for text in entry.usage)
    for alias in entry.ir_measures:
        assert parse_measure(alias + "@10" * (entry.cutoff == "required")).name == entry.name
    for ranx in entry.ranx:
        found = resolve(ranx.name + "@10" * (ranx.cutoff == "required"))
        assert found is not None and parse_measure(found[0]).name == entry.name
    for trec in entry.trec_eval:
        text = {"cut": f"{trec.base}_10", "recall": f"{trec.base}_0.20"}.get(trec.form, trec.base)
        m = parse_measure(text)
        assert (m.name, m.trec_eval_name) == (entry.name, text)
    assert entry.bounds[0] == 0.0 and entry.kind in {
        "binary",
        "binary_at_cutoff_1",
        "binary_at_one_relevant",
        "graded",
    }
    assert entry.polars is not None or entry.frame is not None


@pytest.mark.parametrize(
    "clash",
    [
        {"trec_eval": (TrecName("map"),)},  # trec_eval's map is AP
        {"ir_measures": ("MAP",)},
        {"ranx": (RanxName("mrr", "RR"),)},
        {"ir_measures": ("AP",)},  # a canonical name is not an alias of another measure
    ],
)
def test_a_name_already_standing_for_a_measure_is_refused(clash):
    with pytest.raises(ValueError, match="already"):
        register(replace(TOY, **clash))
    with pytest.raises(InputError):
        parse_measure("FirstRelGrade")  # nothing was registered
