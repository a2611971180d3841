"""Drilling into a recurring failure: every recorded release's top k for the query, with each
document's grade as the run was scored ([?] unjudged), as the review screen shows a query."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from goldset_tui.history.records import Record
from goldset_tui.ui.leaving import LeaveKeys, leave_bindings
from goldset_tui.ui.safe import literal


def grade_text(grade: object) -> Text:
    return Text("[?]" if grade is None else f"[{grade}]", style="dim" if grade is None else "")


class HistoryQueryScreen(LeaveKeys, Screen[None]):
    DEFAULT_CSS = """
    HistoryQueryScreen #history-query-title { padding: 0 1; text-style: bold; }
    HistoryQueryScreen #history-query-table { height: 1fr; }
    """
    BINDINGS = [*leave_bindings("history_query.back", "history_query.home")]

    def __init__(self, query_id: str, system: str, records: Sequence[Record]) -> None:
        super().__init__()
        self.query_id = query_id
        self.system = system
        self.records = list(records)

    def compose(self) -> ComposeResult:
        yield Static(id="history-query-title")
        yield DataTable(id="history-query-table", cursor_type="row", zebra_stripes=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        stratum = next(
            (
                r.stratum_of(self.query_id)
                for r in reversed(self.records)
                if self.query_id in r.scores
            ),
            "",
        )
        self.query_one("#history-query-title", Static).update(
            literal(
                f"{self.system}, query {self.query_id} ({stratum}): top k in every release",
                keep_newlines=False,
            )
        )
        table = self.query_one(DataTable)
        for label, key, width in (
            ("release", "release", 15),
            ("score", "score", 6),
            ("rank", "rank", 4),
            ("grade", "grade", 5),
            ("document", "doc", None),
        ):
            table.add_column(label, key=key, width=width)
        for rec in self.records:
            score = rec.scores.get(self.query_id)
            shown = "-" if score is None else f"{score:.3f}"
            top = rec.topk.get(self.query_id, [])
            if not top:
                table.add_row(
                    literal(rec.release, keep_newlines=False), Text(shown), Text(""), Text(""),
                    Text("(no top k recorded)", style="dim"),
                )  # fmt: skip
            for i, (rank, doc, grade) in enumerate(top):
                table.add_row(
                    literal(rec.release if i == 0 else "", keep_newlines=False),
                    Text(shown if i == 0 else "", justify="right"),
                    Text(str(rank), justify="right"),
                    grade_text(grade),
                    literal(str(doc), keep_newlines=False),
                )
