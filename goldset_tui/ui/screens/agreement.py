"""The agreement screen: pairwise matrix, alpha by level and by stratum, position bias, and the
disagreements by size.

The report (with its bootstrap) is computed in a worker thread, so the screen appears at once on
a large store; Enter on a disagreement opens the pair with every labeller's grade, note and time;
``i`` shows each kappa's 95% interval in the matrix; ``b`` opens the position-bias tables.
"""

from __future__ import annotations

from typing import Any

import polars as pl
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from goldset_tui.adjudication.details import pair_details
from goldset_tui.agreement.position import position_bias_of
from goldset_tui.agreement.report import agreement_report, disagreements
from goldset_tui.agreement.sources import AgreementData, self_consistency_of
from goldset_tui.text import visible
from goldset_tui.ui.leaving import LeaveKeys, leave_bindings
from goldset_tui.ui.safe import literal
from goldset_tui.ui.text.shorten import cell_width
from goldset_tui.ui.widgets.agreement_detail import PairDetailScreen
from goldset_tui.ui.widgets.position_bias import PositionBiasScreen, trend_text
from goldset_tui.ui.widgets.topk_jump import TopKJump

# What the pairwise matrix shows, cycled with "m": (report key, heading).
MATRIX_MEASURES = (
    ("kappa_quadratic", "Cohen's kappa, quadratic"),
    ("kappa_linear", "Cohen's kappa, linear"),
    ("kappa", "Cohen's kappa, unweighted"),
    ("agreement", "raw agreement"),
)


def num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


class AgreementScreen(TopKJump, LeaveKeys, Screen[None]):
    BINDINGS = [
        Binding(
            "enter",
            "open",
            "open pair",
            id="agreement.open",
            tooltip="Show the pair: text, grades, notes, time",
        ),
        Binding(
            "m",
            "cycle_measure",
            "matrix measure",
            id="agreement.measure",
            tooltip="Cycle the measure in the pairwise matrix",
        ),
        Binding(
            "i",
            "toggle_intervals",
            "intervals",
            id="agreement.intervals",
            tooltip="Show each pair's 95% interval in the matrix instead of the units both judged",
        ),
        Binding(
            "b",
            "position_bias",
            "position bias",
            id="agreement.position_bias",
            tooltip="Grades by shown position and by time into a sitting, per labeller",
        ),
        Binding(
            "r",
            "system_ranking",
            "ranking",
            id="agreement.system_ranking",
            tooltip="The systems ranked under two label sets side by side, flips marked (needs --run)",
            # In the footer only when there is a ranking to open (check_action): at 80 columns
            # it fits beside the others, and this screen has no `?` to list a hidden key.
        ),
        Binding(
            "t",
            "topk",
            "top k",
            id="agreement.topk",
            tooltip="Every system's top k for the disagreement's query, on the consensus grades "
            "(needs --run, or a pool that records systems and ranks)",
        ),
        Binding("tab", "app.focus_next", "next pane", id="agreement.focus_next", show=False),
        *leave_bindings("agreement.back", "agreement.quit"),  # Escape back, q home
    ]

    DEFAULT_CSS = """
    AgreementScreen #agreement-top { height: auto; max-height: 50%; }
    AgreementScreen #agreement-matrix { width: 1fr; height: auto; max-height: 12; }
    AgreementScreen #agreement-summary-box { width: 1fr; height: auto; max-height: 12; }
    AgreementScreen #agreement-summary { padding: 0 1; }
    AgreementScreen #agreement-matrix-title, AgreementScreen #agreement-list-title { text-style: bold; padding: 0 1; }
    AgreementScreen #agreement-disagreements { height: 1fr; }
    AgreementScreen #agreement-top.stacked { layout: vertical; }
    """

    def __init__(
        self,
        data: AgreementData,
        *,
        strata: pl.DataFrame | None = None,
        seed: int = 0,
        replicates: int = 1000,
        ranking: dict | None = None,
        runs: dict[str, pl.DataFrame] | None = None,
        rule: str | None = None,
    ) -> None:
        super().__init__()
        self.data = data
        self.topk_runs = runs  # --run: the top k view's systems (else the pool's, if recorded)
        self.topk_rule = rule
        self.ranking = ranking  # the report's "system_ranking", when runs were given
        self.strata = strata
        self.seed = seed
        self.replicates = replicates
        self.report: dict | None = None
        self._matrix_width = 0  # what the pairwise matrix needs (fill_matrix)
        self.ranked = disagreements(data.ratings)
        self.decided = decisions_of(data)  # (query, doc) -> the adjudicator's grade
        self.measure_index = 0
        self.intervals = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="agreement-matrix-title")
        with Horizontal(id="agreement-top"):
            yield DataTable(id="agreement-matrix", cursor_type="none", zebra_stripes=True)
            with VerticalScroll(id="agreement-summary-box"):
                yield Static(Text("computing..."), id="agreement-summary")
        yield Static(
            Text(
                f"Disagreements, biggest first ({self.ranked.height}; {self._decided_count()} "
                "adjudicated); Enter opens one"
            ),
            id="agreement-list-title",
        )
        yield DataTable(id="agreement-disagreements", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def _decided_count(self) -> int:
        pairs = self.ranked.select("query_id", "doc_id").iter_rows()
        return sum(1 for pair in pairs if pair in self.decided)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "system_ranking":
            return bool(self.ranking)
        return super().check_action(action, parameters)

    def on_mount(self) -> None:
        labellers = self.data.ratings.get_column("labeller").n_unique()
        units = self.data.ratings.get_column("unit").n_unique()
        self.title = "Agreement"
        # Units: query-document pairs judged by anyone; each pair of labellers (the matrix) counts
        # only the units both judged, a smaller number, so the two are named apart.
        scale = f"{self.data.scale.min}-{self.data.scale.max}"
        self.sub_title = f"{labellers} labellers, {units} units judged, scale {scale}"
        table = self.query_one("#agreement-disagreements", DataTable)
        # The grades before the document: a long id would push them off an 80-column screen,
        # and the id is cut at the right edge with the whole of it one Enter away.
        # "decided": the adjudicated grade beside the grades it settles (empty: pending).
        table.add_columns("spread", "query", "grades", "decided", "document")
        for row in self.ranked.iter_rows(named=True):
            decided = self.decided.get((row["query_id"], row["doc_id"]))
            table.add_row(
                Text(str(row["spread"]), justify="right"),
                literal(row["query_id"], keep_newlines=False),
                literal(" ".join(row["grades"]), keep_newlines=False),
                Text("" if decided is None else str(decided), justify="center", style="bold"),
                literal(row["doc_id"], keep_newlines=False),
            )
        table.focus()
        self.compute()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def compute(self) -> None:
        report = agreement_report(
            self.data.ratings,
            self.data.scale,
            strata=self.strata,
            seed=self.seed,
            replicates=self.replicates,
        )
        report["position_bias"] = position_bias_of(self.data)
        repeats = self_consistency_of(self.data)
        if repeats is not None:
            report["self_consistency"] = repeats
        self.app.call_from_thread(self.show_report, report)

    def show_report(self, report: dict) -> None:
        self.report = report
        self.fill_matrix()
        self.query_one("#agreement-summary", Static).update(summary_text(report))

    def fill_matrix(self) -> None:
        if self.report is None:
            return
        key, heading = MATRIX_MEASURES[self.measure_index]
        what = "95% interval" if self.intervals else "units both judged"
        self.query_one("#agreement-matrix-title", Static).update(Text(f"Pairs: {heading} ({what})"))
        names = self.report["labellers"]
        cells = {}
        for p in self.report["pairs"]:
            ci = p.get(f"{key}_ci95")
            shown = f"[{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "[-]"
            extra = shown if self.intervals else f"({p['n']})"
            cells[p["a"], p["b"]] = cells[p["b"], p["a"]] = f"{num(p[key])} {extra}"
        table = self.query_one("#agreement-matrix", DataTable)
        table.clear(columns=True)
        table.add_column("")
        for name in names:
            table.add_column(literal(name, keep_newlines=False))
        for a in names:
            table.add_row(
                literal(a, keep_newlines=False), *[Text(cells.get((a, b), "")) for b in names]
            )
        # Each column as wide as its widest entry, plus the table's padding of 2 (the first
        # column's and the last one's outer padding are not counted: they may fall off).
        first = max((cell_width(visible(a, keep_newlines=False)) for a in names), default=0)
        self._matrix_width = first + sum(
            2
            + max(
                cell_width(visible(b, keep_newlines=False)),
                *(len(cells.get((a, b), "")) for a in names),
            )
            for b in names
        )
        self._stack_if_narrow()

    def _stack_if_narrow(self) -> None:
        """Matrix beside the summary when half the screen holds it, else above it: side by side
        at 80 columns, four labellers' "-0.429 (2)" cells were cut to "-0.4"."""
        wide = self._matrix_width > self.app.size.width // 2
        self.query_one("#agreement-top").set_class(wide, "stacked")

    def on_resize(self) -> None:
        if self.report is not None:
            self._stack_if_narrow()

    def action_cycle_measure(self) -> None:
        self.measure_index = (self.measure_index + 1) % len(MATRIX_MEASURES)
        self.fill_matrix()

    def action_toggle_intervals(self) -> None:
        self.intervals = not self.intervals
        self.fill_matrix()

    def action_position_bias(self) -> None:
        if self.report is None:
            self.notify("still computing", timeout=2)
            return
        if not self.report.get("position_bias"):
            self.notify("no shown positions recorded (qrels files do not keep them)", timeout=4)
            return
        self.app.push_screen(PositionBiasScreen(self.report["position_bias"]))

    def action_system_ranking(self) -> None:
        from goldset_tui.ui.screens.system_ranking import SystemRankingScreen

        if not self.ranking:
            self.notify("give --run NAME=PATH (and -m) to compare system rankings", timeout=4)
            return
        self.app.push_screen(SystemRankingScreen(self.ranking))

    def action_open(self) -> None:
        table = self.query_one("#agreement-disagreements", DataTable)
        if self.ranked.height == 0 or table.cursor_row is None:
            return
        row = self.ranked.row(table.cursor_row, named=True)
        details = pair_details(self.data.ratings, self.data.pool, row["query_id"], row["doc_id"])
        self.app.push_screen(PairDetailScreen(details, self.data.scale.labels))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "agreement-disagreements":
            self.action_open()

    def action_topk(self) -> None:
        table = self.query_one("#agreement-disagreements", DataTable)
        if self.ranked.height == 0 or table.cursor_row is None:
            self.notify("No disagreement to open.", timeout=3)
            return
        self.open_topk(self.ranked.row(table.cursor_row, named=True)["query_id"])

    def topk_queue(self) -> list[str]:
        return self.ranked.get_column("query_id").unique(maintain_order=True).to_list()

    def has_pair(self, query_id: str, doc_id: str) -> bool:
        return (query_id, doc_id) in set(self.ranked.select("query_id", "doc_id").iter_rows())

    def show_pair(self, query_id: str, doc_id: str) -> None:
        """Back from the top k view: the disagreement highlighted in the list, its detail open."""
        pairs = self.ranked.select("query_id", "doc_id").rows()
        table = self.query_one("#agreement-disagreements", DataTable)
        table.move_cursor(row=pairs.index((query_id, doc_id)), animate=False)
        self.action_open()


def decisions_of(data: AgreementData) -> dict[tuple[str, str], int]:
    """The adjudicated grade in force per pair, for a store (none for files, or on a bad journal:
    the screen still shows the disagreements, `goldset adjudicate` reports the journal)."""
    if data.project is None:
        return {}
    from goldset_tui.adjudication.decisions import load_adjudications
    from goldset_tui.errors import InputError

    try:
        frame = load_adjudications(data.project.path)
    except (InputError, OSError):
        return {}
    return {(q, d): int(g) for q, d, g in frame.select("query_id", "doc_id", "grade").iter_rows()}


def with_ci(x: float | None, ci: list[float] | None) -> str:
    return num(x) if x is None or ci is None else f"{num(x)} [{ci[0]:.2f}, {ci[1]:.2f}]"


def summary_text(report: dict[str, Any]) -> Text:
    alpha = report["alpha"]
    out = Text()
    out.append("Krippendorff's alpha", style="bold")
    out.append(" [95% interval]\n")
    for level in ("ordinal", "nominal", "interval"):
        out.append(f" {level} {with_ci(alpha[level], alpha[f'{level}_ci95'])}\n")
    fleiss = report["fleiss_kappa"]
    out.append("Fleiss' kappa ", style="bold")
    out.append(f"{num(fleiss)}" + (" (unequal ratings)\n" if fleiss is None else "\n"))
    out.append("Binary cut-offs", style="bold")
    out.append(" alpha (agreement)\n")
    for b in report["binary"]:
        out.append(
            f" >={b['threshold']} {with_ci(b['alpha'], b['alpha_ci95'])} ({num(b['agreement'])})\n"
        )
    if report["strata"]:
        out.append("By stratum", style="bold")
        out.append(" ordinal alpha (queries)\n")
        for s in report["strata"]:
            out.append(" ")
            out.append_text(literal(s["stratum"], keep_newlines=False))
            out.append(
                f" {with_ci(s['alpha_ordinal'], s['alpha_ordinal_ci95'])} ({s['queries']})\n"
            )
    if report.get("position_bias"):
        out.append("Position bias", style="bold")
        out.append(" (b: tables)\n")
        for r in report["position_bias"]:
            out.append(" ")
            out.append_text(literal(r["labeller"], keep_newlines=False))
            out.append(" ")
            out.append_text(trend_text(r["position_trend"], "positions"))
            out.append("\n")
    if report.get("self_consistency"):
        out.append("Self-consistency", style="bold")
        out.append(" repeats agree (shift)\n")
        for r in report["self_consistency"]:
            out.append(" ")
            out.append_text(literal(r["labeller"], keep_newlines=False))
            out.append(f" {num(r['agreement'])} of {r['n']} ({r['mean_shift']:+.2f})\n")
    if report.get("ci_method"):
        replicates = report["ci_method"].split("B=")[1].split(",")[0]
        out.append(
            f"Intervals: each of the {report['queries']} queries left out in turn (pairs of one "
            "query are alike, so whole queries); the queries redrawn "
            f"{replicates} times for a figure undefined with a query left out\n",
            style="dim",
        )
    out.rstrip()
    return out
