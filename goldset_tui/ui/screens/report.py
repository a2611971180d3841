"""The report screen: the stratified table with every interval drawn as a bar.

Enter on a cell opens that stratum's failing queries for that system; from there a query's every
system top k, and from there judging the missing pairs (see ``ui/widgets/report_drill.py``).
``c`` opens the closure screen. All data (strata, system names, ids) is drawn through
``literal``: nothing from a file is parsed as markup.
"""

from __future__ import annotations

import polars as pl
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from goldset_tui.eval.strata import SMALL_STRATUM
from goldset_tui.report.format import cell_text, dropped_rows
from goldset_tui.report.pipeline import Report
from goldset_tui.report.summary import headline_lines
from goldset_tui.report.words import fusion_brief
from goldset_tui.ui.leaving import LeaveKeys, leave_bindings
from goldset_tui.ui.review_context import ReviewContext  # also imported from here
from goldset_tui.ui.safe import literal
from goldset_tui.ui.widgets.report_bar import (
    SYSTEM_KEY,
    add_system_columns,
    cell,
    refilling,
    system_forms,
)
from goldset_tui.ui.widgets.review_keys import ReviewKeys

ALL_ROW = "\x00all"  # row key of the overall row: cannot collide with a stratum name from a file


# A cell's figures ("18/18 · 1.000 [0.824, 1.000]" is 28 characters) and a bar of at least 20.
FIGURES = 28
FIGURES_AND_BAR = 8 + FIGURES + 20


def _figures(row: dict) -> str:
    return cell_text(row["hits"], row["n"], row["mean"], row["ci_lo"], row["ci_hi"], row["small"])


def bar_width(total_width: int, systems: int) -> int:
    # stratum and n columns take about 24 cells; each system cell has "0.94 " and padding.
    per = (total_width - 26) // max(1, systems)
    return max(6, min(30, per - 8))


class ReportScreen(ReviewKeys, LeaveKeys, Screen[None]):
    CSS_PATH = "report.tcss"
    BINDINGS = [
        Binding(
            "enter",
            "drill",
            "failing queries",
            id="report_drill",
            tooltip="This stratum's failing queries for this system",
        ),
        Binding(
            "c",
            "closure",
            "closure",
            id="report_closure",
            tooltip="Every closure check with its residual",
        ),
        Binding(
            "s",
            "summary",
            "whole report",
            id="report_summary",
            tooltip="Headlines, fusion, failure overlap and the oracle, judged shares, paired tests",
        ),
        Binding(
            "o",
            "overlap",
            "overlap",
            id="report_overlap",
            tooltip="Failure overlap of every pair; Enter lists a pair's queries",
            show=False,  # the footer is full at 80 columns: named in the notes and under ?
        ),
        Binding("w", "warnings", "warnings", id="report_warnings", tooltip="Show every warning"),
        Binding(
            "d",
            "decisions",
            "decisions",
            id="report_decisions",
            tooltip="Route, fuse or keep both: every option per stratum and overall, in queries",
            show=False,  # the footer is full at 80 columns: named under ?
        ),
        Binding(
            "l",
            "next_source",
            "grades",
            id="report_source",
            tooltip="Whose grades: the next labeller of the store, or its consensus",
        ),
        Binding(
            "m",
            "next_metric",
            "metric",
            id="report_metric",
            tooltip="The next measure at this k (Success, nDCG, P, R, RR, then AP)",
        ),
        *leave_bindings("report_back", "report_quit"),  # Escape back, q home (ui/leaving.py)
    ]

    def __init__(self, context: ReviewContext) -> None:
        super().__init__()
        self.context = context
        self._target: tuple[str | None, str] | None = None  # a recomputation under way

    @property
    def report(self) -> Report:
        return self.context.report

    def compose(self) -> ComposeResult:
        yield Static(id="report-title")
        # The stratum column stays put when the table scrolls sideways.
        yield DataTable(id="report-table", cursor_type="cell", zebra_stripes=True, fixed_columns=1)
        yield Static(id="report-notes")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_report()
        self.query_one(DataTable).focus()

    def refresh_report(self) -> None:
        r = self.report
        closes = (
            Text("table closes ✓", style="bold green")
            if r.closes
            else Text("table DOES NOT close ✗", style="bold red")
        )
        title = literal(f"{header(self.context)} · 95% {r.method} intervals · ") + closes
        self.query_one("#report-title", Static).update(title)
        self._fill_table()
        self._show_notes()

    def _show_notes(self) -> None:
        r = self.report
        # Wrapped, never cut (a cut headline ended in an ellipsis and hid the fusion note).
        notes = Text()
        line = self._cell_line()
        if line is not None:
            notes.append_text(line)
            notes.append("\n")
        notes.append_text(literal("\n".join(headline_lines(r)), keep_newlines=True))
        fusion = fusion_brief(r)
        if fusion:
            notes.append("\n")
            notes.append_text(literal(fusion, keep_newlines=False))
        notes.append(
            "\ns: the whole report · o: failure overlap · enter: failing queries · ?: keys · "
            f"† under {SMALL_STRATUM} queries: counts, not rates",
            style="dim",
        )
        warnings = self.warnings()
        if warnings:
            # The count and the key: a long warning here would push the headline out of the
            # notes' half of the screen at 80x24; w shows every one in full.
            notes.append(f"\n⚠ {len(warnings)} warning(s): w to read them", style="bold yellow")
        else:
            notes.append("\nno warnings", style="dim")
        self.query_one("#report-notes", Static).update(notes)

    def _cell_line(self) -> Text | None:
        """The highlighted cell in numbers, as the Markdown writes it (``4/5 · 0.800 [0.376,
        0.964]``): the bars show the shape, this the figures to quote."""
        table = self.query_one(DataTable)
        if table.row_count == 0 or not table.columns:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate)
        row, column = key.row_key.value, key.column_key.value
        r = self.report
        systems = r.all_systems
        if column and column.startswith(SYSTEM_KEY):
            system = column.removeprefix(SYSTEM_KEY)
        elif systems:
            system = systems[0]
        else:
            return None
        if row == ALL_ROW:
            label = "all"
            rows = r.overall.filter(pl.col("system") == system).with_columns(
                small=pl.col("n") < SMALL_STRATUM
            )
        else:
            label = str(row)
            rows = r.table.filter((pl.col("stratum") == row) & (pl.col("system") == system))
        if rows.height == 0:
            return None
        x = rows.row(0, named=True)
        figures = cell_text(x["hits"], x["n"], x["mean"], x["ci_lo"], x["ci_hi"], x["small"])
        line = Text("▸ ", style="bold")
        line.append_text(literal(f"{label} · {system}: ", keep_newlines=False))
        line.append(figures, style="bold")
        line.append(f" · 95% {r.method}" + (" · †" if x["small"] else ""), style="dim")
        return line

    def on_data_table_cell_highlighted(self, event: DataTable.CellHighlighted) -> None:
        event.stop()
        self._show_notes()

    def warnings(self) -> list[str]:
        """The store's warnings on open (a torn journal tail, a changed pool), then the report's."""
        return [*self.context.store_warnings, *self.report.warnings]

    def _fill_table(self) -> None:
        r = self.report
        systems = r.all_systems
        width = bar_width(self.app.size.width, len(systems))
        # Wide enough (200 columns, three systems): each cell carries its figures beside the bar.
        per = (self.app.size.width - 26) // max(1, len(systems))
        wide = per >= FIGURES_AND_BAR
        if wide:
            width = max(6, min(30, per - 8 - FIGURES))
        # Refilled after judging (a worker recomputes): the cursor stays where it was.
        with refilling(self.query_one(DataTable)) as table:
            table.add_column(Text("stratum"), key="stratum")
            table.add_column(Text("n", justify="right"), key="n")
            # Long run names cut in the middle (kept distinct) to the cell's width, so a name
            # never pushes the last system off an 80-column screen.
            add_system_columns(table, systems, system_forms(systems, width + 5))
            cells = {(row["stratum"], row["system"]): row for row in r.table.iter_rows(named=True)}
            for stratum in r.strata:
                row = [cells.get((stratum, s)) for s in systems]
                first = next(x for x in row if x)
                label = literal(stratum, keep_newlines=False)
                if first["small"]:
                    label.append(" †", style="yellow")
                values = [
                    cell(
                        x["mean"],
                        x["ci_lo"],
                        x["ci_hi"],
                        width,
                        hits=x["hits"],
                        n=x["n"],
                        small=x["small"],
                        figures=_figures(x) if wide else None,
                    )
                    if x
                    else Text("-")
                    for x in row
                ]
                table.add_row(label, Text(str(first["n"]), justify="right"), *values, key=stratum)
            over = {row["system"]: row for row in r.overall.iter_rows(named=True)}
            values = [
                cell(
                    over[s]["mean"],
                    over[s]["ci_lo"],
                    over[s]["ci_hi"],
                    width,
                    figures=_figures({**over[s], "small": False}) if wide else None,
                )
                for s in systems
            ]
            table.add_row(
                Text("all", style="bold"), Text(str(r.n), justify="right"), *values, key=ALL_ROW
            )

    # ----- actions ----------------------------------------------------------------------------
    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        self._drill(event.cell_key.row_key.value, event.cell_key.column_key.value)

    def action_drill(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate)
        self._drill(key.row_key.value, key.column_key.value)

    def _drill(self, row: str | None, column: str | None) -> None:
        from goldset_tui.ui.widgets.report_drill import FailuresScreen

        systems = self.report.all_systems
        system = (
            column.removeprefix(SYSTEM_KEY)
            if column and column.startswith(SYSTEM_KEY)
            else (systems[0] if systems else None)
        )
        if system is None or row is None:
            return
        stratum = None if row == ALL_ROW else row
        self.app.push_screen(FailuresScreen(self.context, system, stratum))

    def action_closure(self) -> None:
        from goldset_tui.ui.screens.closure import ClosureScreen

        self.app.push_screen(
            ClosureScreen(
                self.report.closure,
                sampling=self.context.sampling_closure,
                sampling_source=self.context.sampling_source,
                dropped=dropped_rows(self.report),
            )
        )

    def action_overlap(self) -> None:
        from goldset_tui.ui.widgets.report_overlap import OverlapScreen

        self.app.push_screen(OverlapScreen(self.context))

    def action_warnings(self) -> None:
        from goldset_tui.ui.screens.help import HelpScreen, keys_table

        text = "\n\n".join(f"• {w}" for w in self.warnings()) or "No warnings."
        self.app.push_screen(HelpScreen(text, keys_table(self), title="Warnings"))

    def action_decisions(self) -> None:
        from goldset_tui.decisions.of_report import NEEDS, report_decisions
        from goldset_tui.ui.screens.decisions import DecisionScreen

        block = self.report.decisions or (self.context.decide or report_decisions)(self.report)
        if block is None or not block.strata:
            self.notify(f"No decisions: {NEEDS}.")
            return
        self.app.push_screen(DecisionScreen(block, source=self.context.source))

    def action_summary(self) -> None:
        from goldset_tui.ui.screens.report_summary import ReportSummaryScreen

        self.app.push_screen(
            ReportSummaryScreen(self.report, source=self.context.source, context=self.context)
        )

    def open_found(self, query_id: str) -> None:
        from goldset_tui.ui.widgets.report_topk import TopKScreen

        self.app.push_screen(TopKScreen(self.context, query_id))

    # ----- what leaves the screen (ui/widgets/review_keys.py) ---------------------------------
    def highlighted_id(self) -> str | None:
        """The highlighted cell's failing queries are what a reader copies from here."""
        ids = self.listed_ids()
        return ids[0] if ids else None

    def listed_ids(self) -> list[str]:
        """The failing query ids of the highlighted cell (its system, its stratum)."""
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return []
        key = table.coordinate_to_cell_key(table.cursor_coordinate)
        row, column = key.row_key.value, key.column_key.value
        systems = self.report.all_systems
        system = (
            column.removeprefix(SYSTEM_KEY)
            if column and column.startswith(SYSTEM_KEY)
            else (systems[0] if systems else "")
        )
        f = self.report.failing.filter(pl.col("system") == system)
        if row != ALL_ROW:
            f = f.filter(pl.col("stratum") == row)
        return [str(q) for q in f.get_column("query_id").to_list()]

    def export_table(self) -> tuple[list[str], list[list[str]], str]:
        """The table in figures, as the Markdown report writes its cells (the bars stay here)."""
        r = self.report
        cells = {(x["stratum"], x["system"]): x for x in r.table.iter_rows(named=True)}
        rows = []
        for stratum in r.strata:
            first = next(x for s in r.all_systems if (x := cells.get((stratum, s))))
            rows.append(
                [stratum, str(first["n"])]
                + [
                    _figures(cells[(stratum, s)]) if (stratum, s) in cells else "-"
                    for s in r.all_systems
                ]
            )
        over = {x["system"]: x for x in r.overall.iter_rows(named=True)}
        rows.append(
            ["all", str(r.n)] + [_figures({**over[s], "small": False}) for s in r.all_systems]
        )
        return ["stratum", "n", *r.all_systems], rows, f"report-{r.metric}"

    def report_changed(self, report: Report) -> None:
        self.context.report = report
        self.refresh_report()

    def _aim(self) -> tuple[str | None, str]:
        """The source and metric in force, or those a recomputation under way is heading for
        (two quick presses of l step twice, not to the same source twice)."""
        return self._target or (self.context.source_key, self.report.metric)

    def action_next_source(self) -> None:
        c = self.context
        if c.rebuild is None or len(c.sources) < 2:
            self.notify(
                f"Grades in force: {c.source or 'as given'}. Only a store (goldset review "
                "--store DIR) has labellers and a consensus to switch between.",
                markup=False,
            )
            return
        key, metric = self._aim()
        at = c.sources.index(key) + 1 if key in c.sources else 0
        self._rebuild(c.sources[at % len(c.sources)], metric)

    def action_next_metric(self) -> None:
        if self.context.rebuild is None:
            self.notify("This report was given without its runs: the measure cannot change here.")
            return
        key, metric = self._aim()
        names = metric_cycle(metric, self.report.k)
        at = names.index(metric) + 1 if metric in names else 0
        self._rebuild(key, names[at % len(names)])

    def _rebuild(self, key: str | None, metric: str) -> None:
        """Recompute on source ``key`` and ``metric`` off the UI thread, then put the report in
        force on every review screen; a source with nothing to report leaves it as it was. Only
        the last of several quick presses is put in force."""
        from textual.worker import get_current_worker

        from goldset_tui.errors import InputError

        context, app = self.context, self.app
        rebuild = context.rebuild
        assert rebuild is not None
        target = (key, metric)
        self._target = target
        self.notify(f"Recomputing: {metric} on {key or 'the same grades'}…", markup=False)

        def settle() -> bool:
            if self._target != target:
                return False  # a later press is under way: it decides
            self._target = None
            return True

        def done(report: Report, label: str) -> None:
            if settle():
                context.source, context.source_key = label, key
                context.apply(app, report)

        def failed(message: str) -> None:
            if settle():
                # The store's words (its path, a labeller's name): every character as written,
                # a control character made visible, never markup.
                shown = literal(message, keep_newlines=False).plain
                self.notify(shown, severity="warning", markup=False)

        def work() -> None:
            try:
                report, label = rebuild(key, metric)
            except InputError as exc:
                app.call_from_thread(failed, f"{key or metric}: {exc}")
                return
            if not get_current_worker().is_cancelled:
                app.call_from_thread(done, report, label)

        app.run_worker(
            work, thread=True, exclusive=True, group="report-recompute", exit_on_error=False
        )


def header(context: ReviewContext) -> str:
    """The measure, whose grades, how many queries (and whose grades J writes, when another's
    are shown)."""
    r = context.report
    parts = [r.metric]
    if context.source:
        parts.append(context.source)
    parts.append(f"{r.n} queries")
    if context.judge_as and context.source_key != context.judge_as:
        parts.append(f"J judges as {context.judge_as}")
    return " · ".join(parts)


def metric_cycle(metric: str, k: int) -> list[str]:
    """The measures ``m`` steps through, at the report's k, the current one first when it is not
    among them: Success, nDCG, P, R and RR at k, then AP."""
    names = [f"Success@{k}", f"nDCG@{k}", f"P@{k}", f"R@{k}", f"RR@{k}", "AP"]
    return names if metric in names else [metric, *names]
