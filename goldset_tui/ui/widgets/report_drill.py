"""Drilling down from the report: a stratum's failing queries, then one query's top k per system,
then judging the pairs nobody has judged yet (seed 004: the failures are lists to read, and
seed 000: unjudged documents count as not relevant, so holes in the pool bias the numbers low).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import polars as pl
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static
from textual.widgets.data_table import CursorType

from goldset_tui.eval.report import missing_pairs
from goldset_tui.eval.report_holes import UNJUDGED as UNJUDGED_STATUS
from goldset_tui.eval.report_holes import hole_counts
from goldset_tui.shorten import distinct_forms
from goldset_tui.text import visible
from goldset_tui.ui.leaving import LeaveKeys, leave_bindings
from goldset_tui.ui.review_context import ReviewContext
from goldset_tui.ui.safe import literal
from goldset_tui.ui.widgets.report_bar import SYSTEM_KEY, add_system_columns, refilling

UNJUDGED = "?"


class _DrillScreen(LeaveKeys, Screen[None]):
    """What both drill-down screens share: a title, a table, optional notes under it, and a
    refill whenever judging changes the report."""

    CSS_PATH = "../screens/report.tcss"
    CURSOR: ClassVar[CursorType] = "row"
    NOTES = False

    def __init__(self, context: ReviewContext) -> None:
        super().__init__()
        self.context = context

    def compose(self) -> ComposeResult:
        yield Static(id="drill-title")
        yield DataTable(id="drill-table", cursor_type=self.CURSOR, zebra_stripes=True)
        if self.NOTES:
            yield Static(id="drill-notes")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_view()
        self.query_one(DataTable).focus()

    def report_changed(self, _report) -> None:
        # Back from judging: refilled from the recomputed report (new grades replace the [?] marks).
        self.refresh_view()

    def refresh_view(self) -> None:
        raise NotImplementedError


class FailuresScreen(_DrillScreen):
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
        (out of the table, with unjudged documents in some run's top k: eval.report_holes)."""
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
            add_system_columns(table, systems)
            for qid in ids:
                row = by_id.get(qid, {})
                cells = [
                    literal(qid, keep_newlines=False),
                    _holes_cell(status.get(qid), holes.get(qid)),
                ]
                if self.context.topics is not None:
                    cells.append(
                        _fit(
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
        except Exception:  # noqa: BLE001 - the row left the list (rescued by judging): stay
            return

    def action_judge(self) -> None:
        start_judging(
            self,
            missing_pairs(self.context.report.topk, self.failing_ids())
            if self.context.report.topk is not None
            else None,
        )


class TopKScreen(_DrillScreen):
    """Every system's top k for one query, each document with its grade; unjudged marked ``?``."""

    CURSOR = "cell"
    NOTES = True
    BINDINGS = [
        Binding(
            "J",
            "judge",
            "judge missing",
            id="topk_judge",
            tooltip="Judge this query's unjudged documents",
        ),
        Binding(
            "i",
            "full_ids",
            "full ids",
            id="topk_full_ids",
            tooltip="Every document id on this screen in full (the table cuts long ones)",
        ),
        Binding("n", "step(1)", "next", id="topk_next", tooltip="The next query of the list"),
        Binding(
            "p",
            "step(-1)",
            "previous",
            id="topk_previous",
            tooltip="The previous query of the list",
        ),
        *leave_bindings("topk_back", "topk_quit", back_keys="escape,backspace"),
    ]

    def __init__(
        self,
        context: ReviewContext,
        query_id: str,
        *,
        queue: Callable[[], list[str]] | None = None,
        moved: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__(context)
        self.query_id = query_id
        self.grid: dict[tuple[str, int], dict] = {}
        self.forms: dict[str, str] = {}
        # The failing list this view was opened from (asked afresh: judging can rescue a query
        # and take it off the list), and who to tell when n/p move along it.
        self.queue = queue
        self.moved = moved
        self.position = 0

    def action_step(self, by: int) -> None:
        """n/p: the next or previous query of the failing list, without going back to it."""
        ids = self.queue() if self.queue is not None else []
        if not ids:
            self.notify("Opened on its own: no list to step through.")
            return
        if self.query_id in ids:
            self.position = ids.index(self.query_id)
            at = self.position + by
        else:  # rescued and gone from the list: the one now at its old place, or before it
            at = self.position if by > 0 else self.position - 1
        if not 0 <= at < len(ids):
            self.notify(f"The {'last' if by > 0 else 'first'} query of the list ({len(ids)}).")
            return
        self.query_id, self.position = ids[at], at
        self.refresh_view()
        if self.moved is not None:
            self.moved(self.query_id)

    def refresh_view(self) -> None:
        r = self.context.report
        text = self.context.query_text(self.query_id)
        title = literal(self.query_id, keep_newlines=False)
        ids = self.queue() if self.queue is not None else []
        if self.query_id in ids:
            title.append(f" ({ids.index(self.query_id) + 1} of {len(ids)}, n/p)", style="dim")
        if text:
            title += literal(f" · {text}", keep_newlines=False)
        values = dict(
            r.scores.filter(pl.col("query_id") == self.query_id)
            .select("system", "value")
            .iter_rows()
        )
        if values:
            line = " · ".join(f"{s} {values.get(s, 0.0):.2f}" for s in r.all_systems)
        else:
            # A golden-set query out of the table: no relevant grade yet, so no system is scored
            # on it; its unjudged documents below are what could change that.
            line = "not in the table: no relevant grade yet (unjudged documents marked ?)"
        title += Text("\n") + literal(line, keep_newlines=False)
        self.query_one("#drill-title", Static).update(title)
        top = (
            r.topk.filter(pl.col("query_id") == self.query_id)
            if r.topk is not None
            else pl.DataFrame()
        )
        grid = {(row["system"], row["rank"]): row for row in top.iter_rows(named=True)}
        self.grid = grid
        # Each system's column gets an equal share of the width; long doc ids are cut in the
        # middle, every id on the screen kept distinct (shorten.py); `i` and the line under the
        # table show them in full.
        width = max(10, (self.app.size.width - 8) // max(1, len(r.all_systems)) - 2)
        ids = [visible(row["doc_id"], keep_newlines=False) for row in grid.values()]
        self.forms = distinct_forms(ids, max(4, width - len("[g] ")))
        with refilling(
            self.query_one(DataTable)
        ) as table:  # the cursor stays across a refresh after judging
            table.add_column(Text("rank", justify="right"), key="rank")
            add_system_columns(table, r.all_systems)
            for rank in range(1, r.k + 1):
                cells = [Text(str(rank), justify="right")]
                for s in r.all_systems:
                    row = grid.get((s, rank))
                    cells.append(_doc_cell(row, self.forms) if row else Text(""))
                table.add_row(*cells, key=str(rank))
        missing = missing_pairs(top) if top.height else None
        self.unjudged = 0 if missing is None else missing.height
        self._show_notes()

    def _show_notes(self) -> None:
        """The highlighted document's full id (wrapped, never cut), then the legend."""
        notes = Text()
        row = self._highlighted()
        if row is not None:
            notes.append("document: ", style="dim")
            notes.append_text(literal(row["doc_id"], keep_newlines=False))
            notes.append("\n")
        notes.append(
            f"[g] grade · {UNJUDGED} unjudged (counted as not relevant) · "
            f"{self.unjudged} unjudged document(s)"
            + (" · J to judge them" if self.unjudged else "")
            + " · i: full ids",
            style="dim",
        )
        self.query_one("#drill-notes", Static).update(notes)

    def _highlighted(self) -> dict | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        coord = table.cursor_coordinate
        key = table.coordinate_to_cell_key(coord)
        system = (key.column_key.value or "").removeprefix(SYSTEM_KEY)
        return self.grid.get((system, int(key.row_key.value or 0)))

    def on_data_table_cell_highlighted(self, event: DataTable.CellHighlighted) -> None:
        event.stop()
        self._show_notes()

    def action_full_ids(self) -> None:
        from goldset_tui.ui.screens.help import HelpScreen, keys_table

        lines = [
            f"{system} #{rank}: {visible(row['doc_id'], keep_newlines=False)}"
            for (system, rank), row in sorted(
                self.grid.items(), key=lambda kv: (kv[0][1], kv[0][0])
            )
        ]
        text = "\n".join(lines) or "No documents."
        self.app.push_screen(HelpScreen(text, keys_table(self), title="Document ids in full"))

    def action_judge(self) -> None:
        top = self.context.report.topk
        start_judging(self, missing_pairs(top, [self.query_id]) if top is not None else None)


def _holes_cell(status: str | None, unjudged: int | None) -> Text:
    """``unjudged`` for a query out of the table that only judging can score; ``2 ?`` for a
    failing query whose top k lists still hold two unjudged documents."""
    if status == UNJUDGED_STATUS:
        return Text(UNJUDGED_STATUS, style="bold yellow")
    if unjudged:
        return Text(f"{unjudged} {UNJUDGED}", style="yellow")
    return Text("")


def _fit(text: Text, width: int) -> Text:
    text.truncate(width, overflow="ellipsis")
    return text


def _doc_cell(row: dict, forms: dict[str, str]) -> Text:
    grade = row["grade"]
    mark = Text(
        f"[{grade}] " if grade is not None else f"[{UNJUDGED}] ",
        style=("bold green" if grade and grade > 0 else "dim")
        if grade is not None
        else "bold yellow",
    )
    shown = visible(row["doc_id"], keep_newlines=False)
    return mark + Text(forms.get(shown, shown), no_wrap=True, overflow="crop")


def start_judging(screen: _DrillScreen, pairs: pl.DataFrame | None) -> None:
    """Open judging on ``pairs`` through the context's judge hook, or say why not."""
    context = screen.context
    if pairs is None or pairs.height == 0:
        screen.notify("Nothing to judge: every document in these top k lists has a grade.")
        return
    if context.judge is None:
        screen.notify(
            "Judging is not available here: run `goldset review` with --store and --labeller.",
            severity="warning",
        )
        return
    result = context.judge(pairs)
    if isinstance(result, str):
        # The message names a user's path: shown as it is, never parsed as markup.
        screen.notify(visible(result, keep_newlines=False), markup=False, timeout=10)
        return

    def apply(report) -> None:
        context.apply(screen.app, report)

    def recompute() -> None:
        # Re-evaluating large runs takes seconds: off the UI thread, results back by call_from_thread.
        report = context.on_judged() if context.on_judged is not None else None
        if report is not None:
            screen.app.call_from_thread(apply, report)

    def judged(_: object = None) -> None:
        if context.on_judged is not None:
            screen.notify("Recomputing the report with the new grades...")
            screen.app.run_worker(
                recompute,
                thread=True,
                exclusive=True,
                group="report-recompute",
                exit_on_error=False,
            )

    screen.app.push_screen(result, judged)
