"""The decision block on one scrolling screen (``d`` from the report screen, `goldset route
--screen`): every option side by side overall and per stratum, in queries against the baseline,
the router's error, and how far the traffic may move (``decisions/text.py``'s sections). Lines
wrap to the width, so at 80x24 nothing is cut; arrows, Page Up/Down, Home and End scroll. System
and stratum names come from the data and are drawn through ``literal``."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from goldset_tui.decisions.block import DecisionBlock
from goldset_tui.decisions.text import decision_sections
from goldset_tui.ui.leaving import LeaveKeys, leave_bindings
from goldset_tui.ui.safe import literal, literal_sections


class DecisionScreen(LeaveKeys, Screen[None]):
    CSS_PATH = "decisions.tcss"
    BINDINGS = [*leave_bindings("decisions_back", "decisions_quit", back_keys="escape,backspace")]

    def __init__(self, block: DecisionBlock, *, source: str | None = None) -> None:
        super().__init__()
        self.block = block
        self.source = source  # whose grades, as the report screen's header says

    def compose(self) -> ComposeResult:
        yield Static(id="decisions-title")
        with VerticalScroll(id="decisions-scroll"):
            yield Static(id="decisions-body")
        yield Footer()

    def on_mount(self) -> None:
        whose = f"{self.source} · " if self.source else ""
        title = literal(
            f"route, fuse or keep both · {whose}against {self.block.baseline}",
            keep_newlines=False,
        )
        title.append("  ↑↓ PgUp PgDn scroll", style="dim")
        self.query_one("#decisions-title", Static).update(title)
        self.query_one("#decisions-body", Static).update(
            literal_sections(decision_sections(self.block))
        )
        self.query_one("#decisions-scroll", VerticalScroll).focus()
