"""The whole report beyond its table, on one scrolling screen (``s`` from the report screen).

Headlines with their intervals, fusion against the best single run and the oracle, failure
overlap for every pair, the judged share, and the paired tests overall and per stratum: the
sections of ``report/summary.py``, each line wrapped to the width, so at 80x24 nothing is
cut; the arrows, Page Up/Down, Home and End scroll. Data is drawn through ``literal``.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from goldset_tui.report.model import Report
from goldset_tui.report.summary import summary_sections
from goldset_tui.ui.leaving import LeaveKeys, leave_bindings
from goldset_tui.ui.safe import literal, literal_sections
from goldset_tui.ui.widgets.review_keys import ReviewKeys


class ReportSummaryScreen(ReviewKeys, LeaveKeys, Screen[None]):
    CSS_PATH = "report.tcss"
    BINDINGS = [
        Binding(
            "o",
            "overlap",
            "overlap",
            id="summary_overlap",
            tooltip="Failure overlap of every pair; Enter lists a pair's queries",
        ),
        *leave_bindings("summary_back", "summary_quit", back_keys="escape,backspace"),
    ]

    def __init__(self, report: Report, *, source: str | None = None, context=None) -> None:
        super().__init__()
        self.report = report
        self.source = source  # whose grades (the report screen's header says the same)
        self.context = context  # the review's (None: opened on a report alone)

    def open_found(self, query_id: str) -> None:
        from goldset_tui.ui.widgets.report_topk import TopKScreen

        self.app.push_screen(TopKScreen(self.context, query_id))

    def highlighted_id(self) -> str | None:
        return None

    def listed_ids(self) -> list[str]:
        return []

    def export_table(self) -> tuple[list[str], list[list[str]], str]:
        rows = [[t, line] for t, lines in summary_sections(self.report) for line in lines]
        return ["section", "line"], rows, f"summary-{self.report.metric}"

    def action_overlap(self) -> None:
        if self.context is None:
            self.notify("Opened on a report alone: no queries to list.")
            return
        from goldset_tui.ui.widgets.report_overlap import OverlapScreen

        self.app.push_screen(OverlapScreen(self.context))

    def compose(self) -> ComposeResult:
        yield Static(id="summary-title")
        with VerticalScroll(id="summary-scroll"):
            yield Static(id="summary-body")
        yield Footer()

    def on_mount(self) -> None:
        self.show(self.report)
        self.query_one("#summary-scroll", VerticalScroll).focus()

    def show(self, report: Report) -> None:
        self.report = report
        whose = f"{self.source} · " if self.source else ""
        title = literal(
            f"{report.metric} · {whose}{report.n} queries · the report beyond its table",
            keep_newlines=False,
        )
        title.append("  ↑↓ PgUp PgDn scroll", style="dim")
        self.query_one("#summary-title", Static).update(title)
        self.query_one("#summary-body", Static).update(literal_sections(summary_sections(report)))

    def report_changed(self, report: Report) -> None:
        # Back from judging (opened further down the stack): the figures follow the new grades.
        self.show(report)
