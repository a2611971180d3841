"""The decision view at 80x24: its top (overall, every option) and its end (the traffic that
moves), on the worked example of docs/report.md's decisions section with 0.97 precision on the
identifier route and the other log's 45%.

Regenerate with `pytest tests/snapshots/test_decisions_snapshots.py --snapshot-update` and read
the SVGs' text before committing them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from goldset_tui.decisions.of_report import report_decisions
from goldset_tui.decisions.routing import Routing
from goldset_tui.report.assemble import assemble_report
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.decisions import DecisionScreen

ROOT = Path(__file__).resolve().parents[2]


def _app() -> GoldsetApp:
    sys.path.insert(0, str(ROOT))
    try:
        from tests.unit.report.decisions_worked import frames, now_shares, traffic
    finally:
        sys.path.pop(0)
    scores, strata = frames()
    report = assemble_report(
        scores, strata, metric="Success@10", traffic=traffic(), fused="rrf", samples=20
    )
    block = report_decisions(
        report,
        routing=Routing({"exact_identifier": "bm25"}, "dense"),
        precision={"exact_identifier": 0.97},
        now=now_shares(),
    )
    return GoldsetApp(lambda: DecisionScreen(block))


@pytest.mark.parametrize("keys", [[], ["end"]], ids=["top", "end"])
def test_decisions_80x24(snap_compare, keys) -> None:
    assert snap_compare(_app(), terminal_size=(80, 24), press=keys)
