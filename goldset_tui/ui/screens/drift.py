"""`goldset drift --screen`: the re-check on one scrolling screen. The shares then and now, the
headline under both and what flips, the plan, and the zero-click shares when the labels carry
them: the lines `goldset drift` prints (``drift.text``), section titles in bold. Strata and
system names come from the user's files and are drawn through ``literal``."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from goldset_tui.drift.result import Drift
from goldset_tui.drift.text import drift_lines
from goldset_tui.ui.leaving import LeaveKeys, leave_bindings
from goldset_tui.ui.safe import literal


def drift_text(drift: Drift) -> Text:
    text = Text()
    for i, line in enumerate(drift_lines(drift)):
        if i:
            text.append("\n")
        heading = bool(line) and not line.startswith(" ") and not line.startswith("note:")
        text.append_text(literal(line, style="bold" if heading else "", keep_newlines=False))
    return text


class DriftScreen(LeaveKeys, Screen[None]):
    CSS_PATH = "drift.tcss"
    BINDINGS = [*leave_bindings("drift_back", "drift_quit", back_keys="escape,backspace")]

    def __init__(self, drift: Drift) -> None:
        super().__init__()
        self.drift = drift

    def compose(self) -> ComposeResult:
        title = literal(
            f"Traffic re-check · {self.drift.old_source} -> {self.drift.new_source}",
            keep_newlines=False,
        )
        title.append("  ↑↓ PgUp PgDn scroll", style="dim")
        yield Static(title, id="drift-title")
        with VerticalScroll(id="drift-scroll"):
            yield Static(drift_text(self.drift), id="drift-body")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#drift-scroll", VerticalScroll).focus()
