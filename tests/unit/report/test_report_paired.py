"""The paired difference's interval where it is printed: `goldset compare` (JSON and text), the
report's paired rows, and its one home with the traffic-weighted difference. Before, all of these
carried a percentile bootstrap that was a point when every query moved the same way."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.cli import main
from goldset_tui.eval.stats import paired_comparison
from goldset_tui.eval.weighting import weighted_difference
from goldset_tui.report.words import TESTS_DISAGREE_SHORT

from .paired_by_hand import difference_interval_by_hand, tango_by_hand


def _files(tmp_path: Path, n: int, b_misses: int) -> tuple[Path, Path, Path]:
    """n queries with one relevant document each; run a finds it first on every query, run b
    on all but the first ``b_misses`` (there it ranks an unjudged document first)."""
    qrels = "".join(f"q{i:02d} 0 rel{i} 1\n" for i in range(n))
    run_a = "".join(f"q{i:02d} Q0 rel{i} 1 2.0 a\n" for i in range(n))
    run_b = "".join(
        f"q{i:02d} Q0 {'junk' if i < b_misses else 'rel'}{i} 1 2.0 b\n" for i in range(n)
    )
    paths = (tmp_path / "qrels", tmp_path / "a.run", tmp_path / "b.run")
    for path, text in zip(paths, (qrels, run_a, run_b), strict=True):
        path.write_text(text)
    return paths


def test_compare_json_carries_the_paired_rate_interval(tmp_path: Path, capsys) -> None:
    # Seven queries, all from a miss (b) to a hit (a) on Success@1: the bootstrap said [1, 1].
    qrels, a, b = _files(tmp_path, 7, 7)
    argv = ["compare", qrels, a, b, "-m", "Success@1", "--format", "json", "--samples", "300"]
    assert main([str(x) for x in argv]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["mean_diff"] == 1.0 and doc["ci_method"] == "paired-score-t"
    assert doc["ci95"] == pytest.approx(list(tango_by_hand(7, 0, 7)), abs=1e-6)
    lo, hi = doc["ci95"]
    assert -1 <= lo < hi <= 1


def test_compare_text_says_why_the_interval_and_p_disagree(tmp_path: Path, capsys) -> None:
    # 42 queries, 5 moved, all one way: the interval excludes 0 ([+0.020, +0.255] by hand) while
    # the sign-flip p cannot go under 2/32 = 0.0625 on five differences.
    qrels, a, b = _files(tmp_path, 42, 5)
    lo, hi = tango_by_hand(5, 0, 42)
    assert lo > 0
    argv = ["compare", qrels, a, b, "-m", "Success@1", "--samples", "4000"]
    assert main([str(x) for x in argv]) == 0
    out = capsys.readouterr().out
    assert f"[{lo:+.4f}, {hi:+.4f}]" in out
    assert "score interval for paired rates" in out
    assert f"note\t{TESTS_DISAGREE_SHORT}" in out
    # Ten of 42 moved: both say the same, and no note.
    qrels, a, b = _files(tmp_path, 42, 10)
    assert main([str(x) for x in ["compare", qrels, a, b, "-m", "Success@1"]]) == 0
    assert "note\t" not in capsys.readouterr().out


def test_one_stratum_weighted_difference_is_the_paired_interval() -> None:
    # One home: the traffic-weighted difference on one stratum of share 1 is the paired interval.
    a = [1.0, 0.5, 0.2, 0.0, 0.9, 0.4, 1.0, 0.3]
    b = [0.8, 0.5, 0.4, 0.0, 0.1, 0.4, 1.0, 0.0]
    ids = [f"q{i}" for i in range(len(a))]
    scores = pl.DataFrame(
        {"system": ["a"] * len(a) + ["b"] * len(b), "query_id": ids * 2, "value": a + b}
    )
    strata = pl.DataFrame({"query_id": ids, "stratum": ["s"] * len(ids)})
    traffic = pl.DataFrame({"stratum": ["s"], "share": [1.0]})
    weighted = weighted_difference(scores, strata, traffic, "a", "b").ci
    paired = paired_comparison(a, b, samples=10).ci95
    assert weighted == pytest.approx(paired, abs=1e-12)
    by_hand = difference_interval_by_hand([x - y for x, y in zip(a, b, strict=True)])
    assert paired == pytest.approx(by_hand, abs=1e-9)


def test_tied_queries_keep_at_least_the_rule_of_three_width(tmp_path: Path, capsys) -> None:
    # 100 queries, every one tied: no differing query among 100 bounds the share that could differ
    # (the rule of three: 3 / n = 0.03). The score interval on the differences printed
    # [-0.0197, +0.0197]; a 0/1 measure now gets Tango's interval at 0 discordant queries.
    qrels, a, b = _files(tmp_path, 100, 0)
    argv = ["compare", qrels, a, b, "-m", "Success@1", "--format", "json", "--samples", "200"]
    assert main([str(x) for x in argv]) == 0
    lo, hi = json.loads(capsys.readouterr().out)["ci95"]
    assert lo <= -0.03 and hi >= 0.03
    assert (lo, hi) == pytest.approx(tango_by_hand(0, 0, 100), abs=1e-6)
    # A graded measure tied everywhere: |d| <= 1, so the same bound holds the mean difference.
    for n in (9, 100):
        graded = paired_comparison([0.4] * n, [0.4] * n, samples=50)
        assert graded.ci95 == pytest.approx(tango_by_hand(0, 0, n), abs=1e-6)
        assert graded.ci95[0] <= -3 / n and graded.ci95[1] >= 3 / n
