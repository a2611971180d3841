"""The eval hook's copies of the report's depth and unjudged threshold stay equal to theirs (the
hook keeps its own so that a small `goldset eval` never imports Polars), and its unjudged share
is the report's on every form a run takes (whole frame, lean, the small path's dicts)."""

from __future__ import annotations

import math

import polars as pl
import pytest

from goldset_tui.commands import _history_hooks
from goldset_tui.commands._eval_output import RunResult
from goldset_tui.commands._eval_scoring import unjudged_shares
from goldset_tui.eval.querysets import sets_of
from goldset_tui.eval.report_compute import judged_shares, topk_frame
from goldset_tui.eval.report_model import DEFAULT_K, UNJUDGED_WARNING
from goldset_tui.history.advice import UNJUDGED_ADVICE
from goldset_tui.io.run_lean import read_run_lean
from goldset_tui.io.small_trec import read_qrels_small, read_run_small
from goldset_tui.io.sources import open_source
from goldset_tui.io.trec import read_qrels, read_run


def test_constants_equal_the_reports():
    assert _history_hooks.DEFAULT_K == DEFAULT_K
    assert _history_hooks.UNJUDGED_ADVICE == UNJUDGED_ADVICE == UNJUDGED_WARNING


@pytest.mark.parametrize("depth", [5, 10, 100])
def test_unjudged_share_is_the_reports_on_every_run_form(peers, depth):
    qrels_src = open_source(peers / "trectools/robust03_cs_qrels.txt.gz")
    run_src = open_source(peers / "trectools/input.uic0301.gz")
    qrels, run = read_qrels(qrels_src), read_run(run_src, tag=False)
    queries = sorted(set(qrels["query_id"].to_list()))[:60]  # some queries, not all
    sets = sets_of(queries, queries, set(run["query_id"].to_list()), "relevant")
    results = {"r": RunResult([], {}, sets, None)}
    top = topk_frame(qrels, {"r": run}, depth, pl.Series(queries, dtype=pl.String))
    expected = 1.0 - judged_shares(top, ["r"])["r"]
    got = [
        unjudged_shares(qrels, {"r": run}, results, depth)["r"],
        unjudged_shares(qrels, {"r": read_run_lean(run_src, qrels)}, results, depth)["r"],
        unjudged_shares(
            read_qrels_small(qrels_src), {"r": read_run_small(run_src)}, results, depth
        )["r"],
    ]
    assert not math.isnan(expected)
    assert got == pytest.approx([expected] * 3, abs=1e-12)
