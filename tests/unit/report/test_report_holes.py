"""The review shows the holes it exists to find: a golden-set query whose relevant grade is missing
but which has unjudged documents in a run's top k stays in the failing lists (marked unjudged),
and the judged shares and the unjudged bounds count its holes. Planted data: planted.py; every
expected figure is counted by hand from its lists."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.report.pipeline import compute_report, failing_csv, to_dict, to_markdown

_spec = importlib.util.spec_from_file_location("planted", Path(__file__).parent / "planted.py")
planted = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(planted)


def _report(qrels: pl.DataFrame | None = None):
    runs = {name: planted.run_frame(name) for name in planted.RUNS}
    return compute_report(
        planted.qrels_with_holes() if qrels is None else qrels,
        runs,
        planted.strata_frame(),
        metric=planted.METRIC,
        samples=50,
    )


def _slots(name: str) -> list[tuple[str, str]]:
    return [(q, d) for q, docs in planted.RUNS[name].items() for d in docs[: planted.K]]


def _scored(grades: dict[tuple[str, str], int]) -> set[str]:
    return {q for (q, _), g in grades.items() if g >= 1}


def _hit(name: str, q: str, grades: dict[tuple[str, str], int]) -> int:
    return int(any(grades.get((q, d), 0) >= 1 for d in planted.RUNS[name][q][: planted.K]))


def test_judged_share_and_bounds_count_the_holes_of_queries_outside_the_table() -> None:
    grades = {p: g for p, g in planted.ALICE.items() if p not in planted.HOLES}
    d = to_dict(_report())
    scored = _scored(grades)
    assert d["n"] == len(scored) == 4  # g1 and g3 have no relevant grade left: out of the table
    for name in planted.RUNS:
        slots = _slots(name)
        judged = sum(1 for p in slots if p in grades) / len(slots)
        assert d["judged"][name] == pytest.approx(judged)
        holes = [p for p in slots if p not in grades]
        b = d["unjudged_bounds"][name]
        assert b["unjudged"] == len(holes)
        # Had its holes been judged relevant: those queries join the table, hits counted by hand.
        filled = {**grades, **dict.fromkeys(holes, 1)}
        queries = sorted(_scored(filled))
        upper = sum(_hit(name, q, filled) for q in queries) / len(queries)
        assert b["unjudged_as_relevant"] == pytest.approx(upper)
        assert b["unjudged_as_nonrelevant"] == pytest.approx(
            sum(_hit(name, q, grades) for q in scored) / len(scored)
        )
        assert b["queries_outside_table"] == len({q for q, _ in holes} - scored)
    # lex's rank 1 of g1 and d06 of g3 are holes: two of lex's 18 slots, one of vec's.
    assert d["judged"]["lex"] == pytest.approx(16 / 18)
    assert d["unjudged_bounds"]["lex"]["unjudged"] == 2
    assert d["unjudged_bounds"]["vec"]["unjudged"] == 1


def test_queries_with_holes_stay_in_the_failing_lists_marked_unjudged() -> None:
    report = _report()
    rows = list(csv.DictReader(io.StringIO(failing_csv(report))))
    for name in ["lex", "vec", "rrf"]:
        mine = {r["query_id"]: r for r in rows if r["system"] == name}
        assert mine["g1"]["status"] == mine["g3"]["status"] == "unjudged"
        assert mine["g4"]["status"] == "fails"  # both miss: scored 0
        assert mine["g1"]["stratum"] == "ident"
    # The hole counts: every run's top 3 together (g1: lex's d04; g3: d06 in both lists).
    lex = {r["query_id"]: r for r in rows if r["system"] == "lex"}
    assert (lex["g1"]["unjudged"], lex["g3"]["unjudged"], lex["g4"]["unjudged"]) == ("1", "1", "0")
    # The closure says why each is out of the table, and that it has holes to judge.
    dropped = {r["query_id"]: r["why"] for r in to_dict(report)["closure"]["dropped"]}
    assert "3 judged, none graded >= 1" in dropped["g1"]
    assert "1 unjudged in the runs' top 3" in dropped["g1"]
    assert "unjudged" in to_markdown(report).split("g3", 1)[1].splitlines()[0]


def test_a_query_one_labeller_never_judged_is_listed_with_its_holes() -> None:
    # Reviewing bob's grades: bob never judged g5, so it has no judgments at all.
    report = _report(planted.qrels_frame(planted.BOB))
    g5 = report.failing.filter(pl.col("query_id") == "g5")
    assert set(g5.get_column("system")) == {"lex", "vec", "rrf"}
    assert set(g5.get_column("status")) == {"unjudged"}
    # Every document of g5 in any top 3 is a hole: lex d30 d31 d32, vec d31 d30 d33.
    assert set(g5.get_column("unjudged")) == {4}
    assert report.judged["lex"] == pytest.approx(15 / 18)


def test_a_fully_judged_query_without_relevant_documents_is_not_a_hole() -> None:
    # g3 with d06 graded 0: nothing to judge, so it is dropped as before (not in the lists).
    grades = {**planted.ALICE, ("g3", "d06"): 0}
    report = _report(planted.qrels_frame(grades))
    assert "g3" not in report.failing.get_column("query_id").to_list()
    assert json.loads(json.dumps(to_dict(report)))["judged"]["vec"] == 1.0
