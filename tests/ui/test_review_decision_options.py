"""`goldset review --precision ...`: the report screen's decision view (``d``) shows the block
`goldset route` computes with the same options, not the default one."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from textual.widgets import Static

from goldset_tui.cli import build_parser, main
from goldset_tui.commands.review import build_context
from goldset_tui.decisions.text import decision_text
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.decisions import DecisionScreen
from goldset_tui.ui.screens.report import ReportScreen

DATA = Path(__file__).resolve().parents[2] / "sample_data"
INPUTS = [
    "--qrels", str(DATA / "judgments" / "alice.qrels"),
    "--run", f"bm25={DATA / 'runs' / 'bm25.run'}",
    "--run", f"minilm={DATA / 'runs' / 'minilm.run'}",
    "--strata", str(DATA / "strata.csv"), "--traffic", str(DATA / "traffic.csv"),
    "--samples", "50",
    "--route", "exact_identifier=bm25", "--default", "minilm",
    "--precision", "exact_identifier=0.97", "--precision", "paraphrase=0.9",
]  # fmt: skip


def test_d_shows_the_block_the_options_ask_for(capsys) -> None:
    assert main(["route", *INPUTS, "--format", "json"]) == 0
    routed = json.loads(capsys.readouterr().out)
    context = build_context(build_parser().parse_args(["review", *INPUTS]))

    async def go() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("d")
            await pilot.pause()
            assert isinstance(app.screen, DecisionScreen)
            body = str(app.screen.query_one("#decisions-body", Static).render())
            block = app.screen.block
            assert block.to_json() == routed
            assert body == decision_text(block)
            assert "paraphrase: precision 0.900" in body

    asyncio.run(go())
