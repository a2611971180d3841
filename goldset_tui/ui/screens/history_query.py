"""Drilling into a recurring failure: the query's top k in every recorded release of one system,
laid out as the review screen's top-k drill-down lays out systems (ranks down, one column per
release, each document with its grade as the run was scored: ``[?]`` unjudged), with the score
of each release in the title."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from goldset_tui.history.records import Record
from goldset_tui.ui.leaving import LeaveKeys, leave_bindings
from goldset_tui.ui.safe import literal

UNJUDGED = "?"  # as the review screen marks it


def doc_cell(doc: str, grade: int | None, width: int) -> Text:
    mark = Text(
        f"[{UNJUDGED if grade is None else grade}] ",
        style="bold yellow" if grade is None else ("bold green" if grade > 0 else "dim"),
    )
    cell = mark + literal(doc, keep_newlines=False)
    cell.truncate(width, overflow="ellipsis")
    return cell


class HistoryQueryScreen(LeaveKeys, Screen[None]):
    DEFAULT_CSS = """
    HistoryQueryScreen #history-query-title { padding: 0 1; height: auto; }
    HistoryQueryScreen #history-query-table { height: 1fr; }
    HistoryQueryScreen #history-query-notes { padding: 0 1; }
    """
    BINDINGS = [*leave_bindings("history_query.back", "history_query.home")]

    def __init__(self, query_id: str, system: str, records: Sequence[Record]) -> None:
        super().__init__()
        self.query_id = query_id
        self.system = system
        self.records = list(records)

    def compose(self) -> ComposeResult:
        yield Static(id="history-query-title")
        yield DataTable(id="history-query-table", cursor_type="cell", zebra_stripes=True)
        yield Static(id="history-query-notes")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        seen = [r for r in self.records if self.query_id in r.scores]
        stratum = seen[-1].stratum_of(self.query_id) if seen else ""
        title = literal(
            f"{self.query_id} ({stratum}) · {self.system} · {self.records[0].measure if self.records else ''}",
            keep_newlines=False,
        )
        scores = " · ".join(
            f"{r.release} {r.scores[self.query_id]:.2f}" if self.query_id in r.scores
            else f"{r.release} -"
            for r in self.records
        )  # fmt: skip
        self.query_one("#history-query-title", Static).update(
            title + Text("\n") + literal(scores, keep_newlines=False)
        )
        table = self.query_one(DataTable)
        table.add_column(Text("rank", justify="right"), key="rank")
        width = max(10, (self.app.size.width - 8) // max(1, len(self.records)) - 2)
        grids = []
        for i, rec in enumerate(self.records):
            table.add_column(literal(rec.release, keep_newlines=False), key=f"r{i}", width=width)
            grids.append(
                {int(rank): (doc, grade) for rank, doc, grade in rec.topk.get(self.query_id, [])}
            )
        depth = max((r.k for r in self.records), default=0)
        for rank in range(1, depth + 1):
            cells = [Text(str(rank), justify="right")]
            for grid in grids:
                hit = grid.get(rank)
                cells.append(doc_cell(hit[0], hit[1], width) if hit else Text(""))
            table.add_row(*cells, key=str(rank))
        unjudged = sum(1 for g in grids for _, grade in g.values() if grade is None)
        self.query_one("#history-query-notes", Static).update(
            Text(
                f"[g] grade · [{UNJUDGED}] unjudged (counted as not relevant) · "
                f"{unjudged} unjudged in these lists",
                style="dim",
            )
        )
