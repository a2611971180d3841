"""The report's sentences (issue 12, item 15): three or more runs, a fused run under the best single
run, one cell format, and an interval that disagrees with its p-value. Numbers worked by hand."""

from __future__ import annotations

import re

import polars as pl
import pytest

from goldset_tui.report.format import cell_text
from goldset_tui.report.pipeline import assemble_report, to_markdown
from goldset_tui.report.words import (
    TESTS_DISAGREE,
    ci_disagrees_with_p,
    fusion_sentence,
    rescue_sentence,
)

QIDS = [f"q{i:02d}" for i in range(10)]


def _report(values: dict[str, list[float]], fused: str = "rrf"):
    systems = list(values)
    scores = pl.DataFrame(
        {
            "system": [s for s in systems for _ in QIDS],
            "query_id": QIDS * len(systems),
            "value": [float(v) for s in systems for v in values[s]],
        }
    )
    strata = pl.DataFrame({"query_id": QIDS, "stratum": ["a"] * 5 + ["b"] * 5})
    return assemble_report(scores, strata, metric="Success@3", fused=fused, samples=200)


def test_a_fused_run_below_the_best_single_run_is_said_so_not_as_a_negative_share() -> None:
    # bm25 hits 8 of 10, dense 6, together (the oracle) 9; rrf hits 7.
    # Share = (0.7 - 0.8) / (0.9 - 0.8) = -1.0: the old screen said "collects -100%".
    report = _report(
        {
            "bm25": [1, 1, 1, 1, 1, 1, 1, 1, 0, 0],
            "dense": [1, 1, 1, 1, 0, 0, 0, 1, 1, 0],
            "rrf": [1, 1, 1, 1, 1, 1, 0, 1, 0, 0],
        }
    )
    assert report.fusion["rrf"]["headroom_collected"] == pytest.approx(-1.0)
    said = fusion_sentence(report)
    assert said is not None
    assert "0.100 below the best single run, bm25 (0.800)" in said
    assert "none of the 0.100 of headroom the oracle (0.900)" in said
    assert not re.search(r"-\d+%", said)
    md = to_markdown(report)
    assert not re.search(r"-\d+%", md) and "0.100 below the best single run" in md


def test_a_share_between_0_and_1_is_a_percentage_of_the_headroom() -> None:
    # Oracle 0.9, best 0.8, fused 0.9: all of it.
    report = _report(
        {
            "bm25": [1, 1, 1, 1, 1, 1, 1, 1, 0, 0],
            "dense": [1, 1, 1, 1, 0, 0, 0, 1, 1, 0],
            "rrf": [1, 1, 1, 1, 1, 1, 1, 1, 1, 0],
        }
    )
    said = fusion_sentence(report)
    assert said is not None and "collects 100% of the headroom" in said
    assert "best single run is bm25 (0.800), the oracle 0.900" in said


def test_with_three_runs_the_rescue_sentence_does_not_speak_of_two_lists() -> None:
    values = {
        "bm25": [1, 1, 1, 1, 1, 1, 1, 1, 0, 0],
        "dense": [1, 1, 1, 1, 0, 0, 0, 1, 1, 0],
        "splade": [1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
        "rrf": [1, 1, 1, 1, 1, 1, 1, 1, 1, 0],
    }
    report = _report(values)
    said = rescue_sentence(report, "bm25", "dense")
    assert "two lists" not in said and "also from splade" in said and "none of them" in said
    assert "two lists" not in to_markdown(report)
    # With exactly two runs the sentence is true as it stands, and kept.
    two = _report({k: v for k, v in values.items() if k != "splade"})
    assert "one of the two lists holds" in rescue_sentence(two, "bm25", "dense")


def test_rescues_from_a_third_run_are_counted_and_attributed() -> None:
    # q09 is missed by bm25 and dense; splade hits it, and so does the fused run.
    values = {
        "bm25": [1, 1, 1, 1, 1, 1, 1, 1, 0, 0],
        "dense": [1, 1, 1, 1, 0, 0, 0, 1, 1, 0],
        "splade": [1, 1, 1, 1, 1, 0, 0, 0, 0, 1],
        "rrf": [1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    }
    said = rescue_sentence(_report(values), "bm25", "dense")
    assert "rescues 1 of them, with documents only splade retrieved" in said


def test_one_cell_format_for_small_strata_large_strata_and_the_overall_row() -> None:
    small = cell_text(7, 7, 1.0, 0.6457, 1.0, True)
    large = cell_text(42, 42, 1.0, 0.9159, 1.0, False)
    graded = cell_text(None, 42, 0.6534, 0.5439, 0.7488, False)
    assert small == "7/7 · 1.000 [0.646, 1.000]"
    assert large == "42/42 · 1.000 [0.916, 1.000]"
    assert graded == "0.653 [0.544, 0.749]"


def test_an_interval_that_disagrees_with_its_p_value_is_marked_and_explained() -> None:
    # The case: the interval excludes 0, p > 0.05 (minilm - combsum on the sample data).
    assert ci_disagrees_with_p({"ci95": [-0.190, -0.024], "p_value": 0.1154})
    assert ci_disagrees_with_p({"ci95": [-0.01, 0.2], "p_value": 0.03})  # and the other way round
    assert not ci_disagrees_with_p({"ci95": [0.048, 0.262], "p_value": 0.026})
    assert not ci_disagrees_with_p(
        {"ci95": [0.0, 0.119], "p_value": 0.5082}
    )  # touching 0 is not out
    assert not ci_disagrees_with_p({"ci95": [None, None], "p_value": 0.5})
    report = _report(
        {
            "bm25": [1, 1, 1, 1, 1, 1, 1, 1, 0, 0],
            "dense": [1, 1, 1, 1, 0, 0, 0, 1, 1, 0],
            "rrf": [1, 1, 1, 1, 1, 1, 1, 1, 1, 0],
        }
    )
    report.paired = [
        {
            "a": "x",
            "b": "y",
            "mean_diff": -0.095,
            "ci95": [-0.190, -0.024],
            "p_value": 0.1154,
            "p_adjusted": 0.5772,
            "wins": 0,
            "losses": 4,
            "ties": 38,
        }
    ]
    md = to_markdown(report)
    assert TESTS_DISAGREE in md
    assert "| [-0.190, -0.024] ‡ |" in md


def test_the_screen_s_fusion_line_says_why_there_is_no_share() -> None:
    from goldset_tui.report.words import fusion_brief

    values = {
        "bm25": [1.0, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0],
        "dense": [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0],
        "rrf": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0],
    }
    scores = pl.DataFrame(
        {
            "system": [s for s in values for _ in QIDS],
            "query_id": QIDS * 3,
            "value": [v for s in values for v in values[s]],
        }
    )
    strata = pl.DataFrame({"query_id": QIDS, "stratum": ["a"] * 10})
    # AP has no cutoff: the oracle (0.9) is above the best run (bm25 0.75) but no ceiling.
    ap = assemble_report(scores, strata, metric="AP", fused="rrf", samples=50)
    assert fusion_brief(ap) == (
        "fusion: rrf 0.700 · best single bm25 0.750 · oracle 0.900 · "
        "no share: no cutoff, the oracle is no ceiling"
    )
    # With a cutoff, rrf under bm25: how far below, never a negative share.
    cut = assemble_report(scores, strata, metric="nDCG@10", fused="rrf", samples=50)
    assert fusion_brief(cut) == (
        "fusion: rrf 0.700 · best single bm25 0.750 · oracle 0.900 · "
        "0.050 below the best single run"
    )
