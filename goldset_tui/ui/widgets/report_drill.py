"""Drilling down from the report: a stratum's failing queries, then one query's top k per system
(``report_topk.py``), then judging the pairs nobody has judged yet (``report_drill_base.py``):
the failures are lists to read, each query a page to read.
"""

from __future__ import annotations

import polars as pl
from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable, Static

from goldset_tui.report.holes import UNJUDGED as UNJUDGED_STATUS
from goldset_tui.report.holes import hole_counts
from goldset_tui.report.pipeline import missing_pairs
from goldset_tui.text import visible
from goldset_tui.ui.leaving import leave_bindings
from goldset_tui.ui.review_context import ReviewContext
from goldset_tui.ui.safe import literal
from goldset_tui.ui.widgets.report_bar import add_system_columns, refilling, system_forms
from goldset_tui.ui.widgets.report_drill_base import UNJUDGED, DrillScreen, fit, start_judging
from goldset_tui.ui.widgets.report_topk import TopKScreen
from goldset_tui.ui.widgets.review_keys import table_cells

__all__ = ["FailuresScreen", "TopKScreen", "start_judging"]


class FailuresScreen(DrillScreen):
    """One system's failing queries in one stratum (all strata when ``stratum`` is None), with
    every system's value beside each so the rescued ones stand out."""

    BINDINGS = [
        Binding(
            "enter",
            "open_query",
            "top k",
            id="failures_open",
            tooltip="Every system's top k for this query",
        ),
        Binding(
            "J",
            "judge",
            "judge missing",
            id="failures_judge",
            tooltip="Judge every unjudged pair of these queries",
        ),
        *leave_bindings("failures_back", "failures_quit", back_keys="escape,backspace"),
    ]

    def __init__(self, context: ReviewContext, system: str, stratum: str | None) -> None:
        super().__init__(context)
        self.system = system
        self.stratum = stratum

    def failing_rows(self) -> pl.DataFrame:
        """This list's rows of the report's failing frame: ``fails`` (scored 0) and ``unjudged``
        (out of the table, with unjudged documents in some run's top k: report.holes)."""
        f = self.context.report.failing.filter(pl.col("system") == self.system)
        if self.stratum is not None:
            f = f.filter(pl.col("stratum") == self.stratum)
        return f

    def failing_ids(self) -> list[str]:
        return self.failing_rows().get_column("query_id").to_list()

    def refresh_view(self) -> None:
        r = self.context.report
        rows = self.failing_rows()
        ids = rows.get_column("query_id").to_list()
        status = dict(rows.select("query_id", "status").iter_rows())
        # Counted from the top k on screen (a report assembled by hand has no counts in its
        # failing frame).
        holes = dict(hole_counts(r.topk).iter_rows()) if r.topk is not None else {}
        outside = sum(1 for q in ids if status.get(q) == UNJUDGED_STATUS)
        where = self.stratum if self.stratum is not None else "all strata"
        total = r.n
        if self.stratum is not None:
            n = r.table.filter(pl.col("stratum") == self.stratum).get_column("n")
            total = int(n[0]) if n.len() else 0
        line = f"{self.system} · {where}: {len(ids) - outside} failing of {total}"
        if outside:
            line += f" · {outside} unjudged (no relevant grade yet, not in the table)"
        self.query_one("#drill-title", Static).update(literal(line, keep_newlines=False))
        systems = r.all_systems
        # The query text gets what the id and value columns leave, so nothing scrolls sideways.
        text_width = max(12, self.app.size.width - 12 - 10 - 8 * len(systems) - 4)
        values = r.scores.filter(pl.col("query_id").is_in(ids)).pivot(
            on="system", index="query_id", values="value"
        )
        by_id = {row["query_id"]: row for row in values.iter_rows(named=True)}
        with refilling(
            self.query_one(DataTable)
        ) as table:  # the cursor stays across a refresh after judging
            table.add_column(Text("query"), key="query_id")
            table.add_column(Text("holes"), key="holes")
            if self.context.topics is not None:
                table.add_column(Text("text"), key="text")
            add_system_columns(table, systems, system_forms(systems, 8))
            for qid in ids:
                row = by_id.get(qid, {})
                cells = [
                    literal(qid, keep_newlines=False),
                    _holes_cell(status.get(qid), holes.get(qid)),
                ]
                if self.context.topics is not None:
                    cells.append(
                        fit(
                            literal(self.context.query_text(qid) or "", keep_newlines=False),
                            text_width,
                        )
                    )
                for s in systems:
                    v = row.get(s)
                    cells.append(
                        Text("-" if v is None else f"{v:.2f}", style="bold green" if v else "dim")
                    )
                table.add_row(*cells, key=qid)

    def open_found(self, query_id: str) -> None:
        from goldset_tui.ui.widgets.report_topk import TopKScreen

        self.app.push_screen(TopKScreen(self.context, query_id))

    def export_table(self) -> tuple[list[str], list[list[str]], str]:
        """The list as on screen, the query texts in full (the screen cuts them to fit)."""
        header, rows = table_cells(self.query_one(DataTable))
        if self.context.topics is not None and "text" in header:
            at = header.index("text")
            for row in rows:
                # In full, but as literally as the rest of the table: no escape reaches a file
                # a reader will `cat` (the other cells are the screen's text already).
                row[at] = visible(self.context.query_text(row[0]) or "", keep_newlines=False)
        return header, rows, f"failing-{self.system}-{self.stratum or 'all'}"

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self._open(event.row_key.value)

    def action_open_query(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count:
            self._open(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    def _open(self, query_id: str | None) -> None:
        if query_id is not None:
            self.app.push_screen(
                TopKScreen(self.context, query_id, queue=self.failing_ids, moved=self.select)
            )

    def select(self, query_id: str) -> None:
        """Put the cursor on ``query_id``'s row (the top-k view moved to it with n/p)."""
        table = self.query_one(DataTable)
        try:
            table.move_cursor(row=table.get_row_index(query_id))
        except Exception:  # the row left the list (rescued by judging): stay
            return

    def action_judge(self) -> None:
        start_judging(
            self,
            missing_pairs(self.context.report.topk, self.failing_ids())
            if self.context.report.topk is not None
            else None,
        )


def _holes_cell(status: str | None, unjudged: int | None) -> Text:
    """``unjudged`` for a query out of the table that only judging can score; ``2 ?`` for a
    failing query whose top k lists still hold two unjudged documents."""
    if status == UNJUDGED_STATUS:
        return Text(UNJUDGED_STATUS, style="bold yellow")
    if unjudged:
        return Text(f"{unjudged} {UNJUDGED}", style="yellow")
    return Text("")
