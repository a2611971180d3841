"""The report screen's decision view (``d``): opened on a report with traffic shares, every
option and the router's line on it, the figures the JSON holds; without traffic, one notice."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

from textual.widgets import Static

from goldset_tui.decisions.of_report import report_decisions
from goldset_tui.decisions.text import decision_text, num
from goldset_tui.report.assemble import assemble_report
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.decisions import DecisionScreen
from goldset_tui.ui.screens.report import ReportScreen, ReviewContext

HERE = Path(__file__).parents[1] / "unit" / "report"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ui_data = _load("ui_data")


def worked_report():
    """The worked example (tests/unit/report/decisions_worked.py), loaded as the package it is."""
    import sys

    sys.path.insert(0, str(HERE.parents[2]))
    try:
        from tests.unit.report.decisions_worked import frames, traffic
    finally:
        sys.path.pop(0)
    scores, strata = frames()
    return assemble_report(
        scores, strata, metric="Success@10", traffic=traffic(), fused="rrf", samples=20
    )


def test_d_opens_the_decisions_with_the_jsons_figures() -> None:
    report = worked_report()
    block = report_decisions(report)

    async def go() -> None:
        app = GoldsetApp(lambda: ReportScreen(ReviewContext(report)))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("d")
            await pilot.pause()
            assert isinstance(app.screen, DecisionScreen)
            body = str(app.screen.query_one("#decisions-body", Static).render())
            assert body == decision_text(block)
            oracle = block.option("oracle")["overall"]["weighted_mean"]
            assert f"oracle (a ceiling): {num(oracle)}" in body
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, ReportScreen)

    asyncio.run(go())


def test_without_traffic_d_says_why_in_one_notice() -> None:
    async def go() -> None:
        app = GoldsetApp(lambda: ReportScreen(ReviewContext(ui_data.make_report())))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("d")
            await pilot.pause()
            assert isinstance(app.screen, ReportScreen)
            assert any("needs --traffic" in str(n.message) for n in app._notifications)

    asyncio.run(go())
