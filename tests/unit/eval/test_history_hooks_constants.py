"""The eval hook, the report and the unjudged advice read the report's depth and unjudged
threshold from one Polars-free module (eval/defaults.py; a small `goldset eval` never imports
Polars), and the hook's unjudged share is the report's on every form a run takes (whole frame,
lean, the small path's dicts)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import polars as pl
import pytest

import goldset_tui
from goldset_tui.app import releases
from goldset_tui.app.scoring import RunResult, unjudged_shares
from goldset_tui.eval import defaults
from goldset_tui.eval.querysets import sets_of
from goldset_tui.history.advice import UNJUDGED_ADVICE
from goldset_tui.io.run_lean import read_run_lean
from goldset_tui.io.small_trec import read_qrels_small, read_run_small
from goldset_tui.io.sources import open_source
from goldset_tui.io.trec import read_qrels, read_run
from goldset_tui.report.compute import judged_shares, topk_frame
from goldset_tui.report.model import DEFAULT_K, UNJUDGED_WARNING


def test_constants_have_one_home():
    # Imported, not copied: the three modules hold the defaults module's values ...
    assert releases.DEFAULT_K is DEFAULT_K is defaults.DEFAULT_K
    assert releases.UNJUDGED_WARNING is UNJUDGED_ADVICE is UNJUDGED_WARNING
    assert UNJUDGED_WARNING is defaults.UNJUDGED_WARNING
    # ... and no module of the package assigns a number to those names but eval/defaults.py.
    assigned = re.compile(
        r"^(DEFAULT_K|UNJUDGED_WARNING|UNJUDGED_ADVICE|DEFAULT_METRIC)\s*=\s*[\d\"]", re.M
    )
    root = Path(goldset_tui.__file__).parent
    homes = sorted(
        str(p.relative_to(root)) for p in root.rglob("*.py") if assigned.search(p.read_text())
    )
    assert homes == ["eval/defaults.py"]


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
