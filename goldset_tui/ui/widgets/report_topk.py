"""One query's top k for every system, with the highlighted document to read beside (or under)
the ranks: see ``report_reading.py`` for the reading pane."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, VerticalScroll
from textual.widgets import DataTable, Footer, Static

from goldset_tui.report.pipeline import missing_pairs
from goldset_tui.report.reading import (
    disagree,
    labelled_grades,
    query_rankings,
    relevant_outside,
    tied_ranks,
)
from goldset_tui.text import visible
from goldset_tui.ui.leaving import leave_bindings
from goldset_tui.ui.review_context import ReviewContext
from goldset_tui.ui.safe import literal
from goldset_tui.ui.text.shorten import distinct_forms
from goldset_tui.ui.widgets.report_bar import (
    SYSTEM_KEY,
    add_system_columns,
    refilling,
    system_forms,
)
from goldset_tui.ui.widgets.report_drill_base import (
    UNJUDGED,
    DrillScreen,
    doc_cell,
    start_judging,
)
from goldset_tui.ui.widgets.report_reading import (
    DISAGREE,
    TIED,
    grades_text,
    outside_text,
    reading_text,
)

WIDE = 140  # from this many columns the text stands beside the ranks, not under them


class TopKScreen(DrillScreen):
    """Every system's top k for one query, each document with its grade; unjudged marked ``?``."""

    CURSOR = "cell"
    NOTES = True
    BINDINGS = [
        Binding(
            "J",
            "judge",
            "judge",
            id="topk_judge",
            tooltip="Judge this query's unjudged documents",
        ),
        Binding(
            "i",
            "full_ids",
            "full ids",
            id="topk_full_ids",
            tooltip="Every document id on this screen in full (the table cuts long ones)",
            show=False,
        ),
        Binding(
            "t", "toggle_text", "text", id="topk_text", tooltip="Show or hide the document's text"
        ),
        Binding(
            "right_square_bracket",
            "page(1)",
            "next page",
            id="topk_page_next",
            tooltip="The next page of a long text",
            show=False,
        ),
        Binding(
            "left_square_bracket",
            "page(-1)",
            "previous page",
            id="topk_page_previous",
            tooltip="The previous page of a long text",
            show=False,
        ),
        Binding(
            "a",
            "pair",
            "disagreement",
            id="topk_pair",
            tooltip="The labellers' disagreement on the highlighted document (agreement or "
            "adjudication detail), when the store has one",
            show=False,
        ),
        Binding("n", "step(1)", "next", id="topk_next", tooltip="The next query of the list"),
        Binding(
            "p",
            "step(-1)",
            "prev",
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
        self.page = 0  # of the highlighted document's text
        self.tied: set[tuple[str, int]] = set()
        self.labelled: dict[str, list[tuple]] = {}
        self.outside: list[tuple[str, int, dict]] = []
        self.unjudged = 0
        self.grid_seen = False

    def open_found(self, query_id: str) -> None:
        self.app.push_screen(TopKScreen(self.context, query_id))

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
        self.query_id, self.position, self.page = ids[at], at, 0
        self.refresh_view()
        if self.moved is not None:
            self.moved(self.query_id)

    def compose(self) -> ComposeResult:
        yield Static(id="drill-title")
        with Container(id="topk-body"):
            yield DataTable(id="drill-table", cursor_type=self.CURSOR, zebra_stripes=True)
            with VerticalScroll(id="reading"):
                yield Static(id="reading-text")
        yield Static(id="drill-notes")
        yield Footer()

    def wide(self) -> bool:
        return self.app.size.width >= WIDE

    def on_resize(self) -> None:
        self.query_one("#topk-body").set_class(self.wide(), "wide")

    def refresh_view(self) -> None:
        r = self.context.report
        self.query_one("#topk-body").set_class(self.wide(), "wide")
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
        rankings = (
            query_rankings(r.runs, self.query_id, fused=r.fused, fusion_depth=r.fusion_depth)
            if r.runs
            else {}
        )
        self.tied = tied_ranks(rankings, r.k)
        self.labelled = labelled_grades(self.context.labellers_grades(), self.query_id)
        self.outside = relevant_outside(r.qrels, rankings, self.query_id, r.k)
        # Each system's column gets an equal share of the table's width (half the screen when the
        # text is beside it); long doc ids are cut in the middle, every id on the screen kept
        # distinct (ui/text/shorten.py); `i` and the line under the table show them in full. Room is
        # kept for the marks (= tied, ≠ disagreement) when the view has any.
        width = max(10, (self.table_width() - 8) // max(1, len(r.all_systems)) - 2)
        ids = [visible(row["doc_id"], keep_newlines=False) for row in grid.values()]
        marks = 2 * bool(self.tied) + 2 * any(
            disagree(self.labelled.get(row["doc_id"], [])) for row in grid.values()
        )
        self.forms = distinct_forms(ids, max(4, width - len("[g] ") - marks))
        names = system_forms(r.all_systems, width)
        with refilling(
            self.query_one(DataTable)
        ) as table:  # the cursor stays across a refresh after judging
            table.add_column(Text("rank", justify="right"), key="rank")
            add_system_columns(table, r.all_systems, names)
            for rank in range(1, r.k + 1):
                cells = [Text(str(rank), justify="right")]
                for s in r.all_systems:
                    row = grid.get((s, rank))
                    cells.append(self._cell(s, rank, row) if row else Text(""))
                table.add_row(*cells, key=str(rank))
            first = not self.grid_seen
        if first and table.row_count and len(table.columns) > 1:
            table.move_cursor(column=1, animate=False)  # opens on a document, not on a rank
        self.grid_seen = True
        missing = missing_pairs(top) if top.height else None
        self.unjudged = 0 if missing is None else missing.height
        self._show_notes()

    def table_width(self) -> int:
        return self.app.size.width // 2 if self.wide() else self.app.size.width

    def _cell(self, system: str, rank: int, row: dict) -> Text:
        cell = doc_cell(row, self.forms)
        if (system, rank) in self.tied:
            cell.append(f" {TIED}", style="bold cyan")
        if disagree(self.labelled.get(row["doc_id"], [])):
            cell.append(f" {DISAGREE}", style="bold magenta")
        return cell

    def _show_notes(self) -> None:
        """The highlighted document's full id (wrapped, never cut) and its grades, the relevant
        documents outside every top k, then the legend; the text goes to the reading pane."""
        r = self.context.report
        notes = Text()
        row = self._highlighted()
        if row is not None:
            notes.append("document: ", style="dim")
            notes.append_text(literal(row["doc_id"], keep_newlines=False, style="bold"))
            notes.append(" · ")
            notes.append_text(grades_text(self.labelled.get(row["doc_id"], []), row["grade"]))
            key = self._key()
            if key in self.tied:
                notes.append(
                    f" · {TIED} tied score: its place beside the tied neighbour was decided by "
                    "the document ids",
                    style="cyan",
                )
            notes.append("\n")
        if self.outside:
            notes.append_text(outside_text(self.outside, r.k))
            notes.append("\n")
        notes.append(
            f"[g] grade · {UNJUDGED} unjudged · {TIED} tie · {DISAGREE} disagreement · "
            f"{self.unjudged} unjudged document(s)"
            + (" · J judges them" if self.unjudged else "")
            + " · i: full ids · t text · ? keys",
            style="dim",
        )
        self.query_one("#drill-notes", Static).update(notes)
        self._show_text(row)

    def _show_text(self, row: dict | None) -> None:
        pane = self.query_one("#reading-text", Static)
        if row is None:
            pane.update(Text(""))
            self.page = 0
            return
        doc = self.context.document(row["doc_id"])
        query = self.context.query_text(self.query_id) or ""
        text, self.page = reading_text(doc, query, page=self.page, size=self.page_size())
        pane.update(text)

    def page_size(self) -> int:
        """About what the pane holds: its width by its height, less the title's lines."""
        w, h = self.app.size
        if self.wide():
            cols, rows = w // 2 - 4, h - 10
        else:
            cols, rows = w - 4, (h - 10) // 2
        return max(1, cols) * max(3, rows - 2)

    def action_page(self, by: int) -> None:
        self.page = max(0, self.page + by)
        self._show_text(self._highlighted())

    def action_toggle_text(self) -> None:
        body = self.query_one("#topk-body")
        body.toggle_class("no-reading")
        shown = not body.has_class("no-reading")
        self.notify("Text shown (t hides it)." if shown else "Text hidden (t shows it).")

    def _key(self) -> tuple[str, int] | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate)
        return (key.column_key.value or "").removeprefix(SYSTEM_KEY), int(key.row_key.value or 0)

    def _highlighted(self) -> dict | None:
        key = self._key()
        return self.grid.get(key) if key is not None else None

    def highlighted_id(self) -> str | None:
        row = self._highlighted()
        return row["doc_id"] if row is not None else None

    def listed_ids(self) -> list[str]:
        """Every document of the view, by rank then system (each once)."""
        ordered = sorted(self.grid.items(), key=lambda kv: (kv[0][1], kv[0][0]))
        return list(dict.fromkeys(row["doc_id"] for _, row in ordered))

    def export_table(self) -> tuple[list[str], list[list[str]], str]:
        """Rank by system, each cell the grade and the full id (not the cut form)."""
        r = self.context.report
        header = ["rank", *r.all_systems]
        rows = []
        for rank in range(1, r.k + 1):
            cells = [str(rank)]
            for s in r.all_systems:
                row = self.grid.get((s, rank))
                grade = "" if row is None else UNJUDGED if row["grade"] is None else row["grade"]
                cells.append("" if row is None else f"[{grade}] {row['doc_id']}")
            rows.append(cells)
        return header, rows, f"topk-{self.query_id}"

    def on_data_table_cell_highlighted(self, event: DataTable.CellHighlighted) -> None:
        event.stop()
        self.page = 0
        self._show_notes()

    def action_full_ids(self) -> None:
        from goldset_tui.ui.widgets.report_ids import IdsScreen

        rows = [
            (f"{system} #{rank}", row["doc_id"])
            for (system, rank), row in sorted(
                self.grid.items(), key=lambda kv: (kv[0][1], kv[0][0])
            )
        ]
        self.app.push_screen(IdsScreen("Document ids in full", rows))

    def action_pair(self) -> None:
        from goldset_tui.ui.widgets.report_pair_jump import open_pair

        doc = self.highlighted_id()
        if doc is None:
            self.notify("No document highlighted.")
            return
        open_pair(self, self.context.store, self.query_id, doc)

    def action_judge(self) -> None:
        top = self.context.report.topk
        start_judging(self, missing_pairs(top, [self.query_id]) if top is not None else None)
