"""What the report's sentences and cells state matches what it computed: the unjudged share
printed beside its threshold is visibly above it, and a weighted difference whose two headlines
are printed is printed too (its interval alone missing)."""

from __future__ import annotations

import math

import polars as pl
import pytest

from goldset_tui.eval.defaults import UNJUDGED_WARNING, percent_against
from goldset_tui.history.advice import unjudged_advice
from goldset_tui.report.pipeline import assemble_report, to_dict, to_markdown


def _frames() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    # Stratum s1 has two queries, s2 and s3 one each: s2 and s3 have no variance, so no
    # stratified interval, but every stratum has a mean.
    a = {"q1": 1.0, "q2": 0.0, "q3": 1.0, "q4": 1.0}
    b = {"q1": 0.0, "q2": 1.0, "q3": 0.0, "q4": 1.0}
    scores = pl.DataFrame(
        {
            "system": ["a"] * 4 + ["b"] * 4,
            "query_id": [*a, *b],
            "value": [*a.values(), *b.values()],
        }
    )
    strata = pl.DataFrame(
        {"query_id": ["q1", "q2", "q3", "q4"], "stratum": ["s1", "s1", "s2", "s3"]}
    )
    traffic = pl.DataFrame({"stratum": ["s1", "s2", "s3"], "share": [0.5, 0.3, 0.2]})
    return scores, strata, traffic


def test_the_unjudged_share_is_printed_as_compared() -> None:
    # 20.5% is above 20%; printed whole it read "20% ... (above 20%)".
    report = assemble_report(*_frames()[:2], judged={"a": 0.795, "b": 0.9}, samples=20)
    (line,) = [w for w in report.warnings if w.startswith("a:")]
    assert line.startswith("a: 20.5% of its top 10 is unjudged (above 20%)")
    (advice,) = unjudged_advice({"a": 0.205, "b": 0.1}, {"a": "a.run"}, 10)
    assert advice.startswith("a: 20.5% of its top 10 is unjudged (above 20%)")
    # As many decimals as it takes, and no more; the printed value parses back above the line.
    for share in (0.2001, 0.205, 0.25, 0.2000004, 0.999):
        text = percent_against(share, UNJUDGED_WARNING)
        assert float(text.rstrip("%")) / 100 > UNJUDGED_WARNING
        assert text != f"{UNJUDGED_WARNING:.{len(text.split('.')[-1]) - 1}%}"
    assert percent_against(0.25, 0.2) == "25%"
    assert percent_against(0.2001, 0.2) == "20.01%"


def test_a_weighted_difference_is_printed_where_its_headlines_are() -> None:
    scores, strata, traffic = _frames()
    paired = [
        {
            "a": "a",
            "b": "b",
            "mean_diff": 0.25,
            "ci95": [-0.7, 0.9],
            "ci_method": "difference-score-t",
            "p_value": 1.0,
            "wins": 2,
            "losses": 1,
            "ties": 1,
        }
    ]
    report = assemble_report(scores, strata, traffic=traffic, paired=paired, samples=20)
    d = to_dict(report)
    wa, wb = d["overall"]["a"]["weighted_mean"], d["overall"]["b"]["weighted_mean"]
    # By hand: a = 0.5 * 1/2 + 0.3 * 1 + 0.2 * 1 = 0.75; b = 0.5 * 1/2 + 0.3 * 0 + 0.2 * 1 = 0.45.
    assert (wa, wb) == (pytest.approx(0.75), pytest.approx(0.45))
    (pair,) = d["paired"]
    # The paired weighted difference, sum of share x mean of (a - b) per stratum: 0 + 0.3 + 0 = 0.3.
    assert pair["weighted_mean_diff"] == pytest.approx(0.3)
    assert pair["weighted_ci95"] == [None, None]  # strata of one query: no interval
    md = to_markdown(report)
    assert "nan" not in md
    (row,) = [line for line in md.splitlines() if line.startswith("| a | b | +0.250 |")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[6:8] == ["+0.300", "-"]
    assert not math.isnan(pair["weighted_mean_diff"])
