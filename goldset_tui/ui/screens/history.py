"""The history screen (docs/history.md): per system, every recorded release's headline with its 95%
interval, the paired change from the previous release (``*`` when its interval excludes 0, ``‡``
when the interval and the p-value disagree, with a legend line saying why) and where the golden
set changed; the highlighted release's change and per-stratum means below; the
recurring failures at the bottom, where Enter opens the query's top k view in the latest release
(every system, as the review shows it) and ``d`` every release's top k of that system. A thin
screen over ``goldset_tui.history``; the numbers are `goldset history`'s."""

from __future__ import annotations

import shlex
from pathlib import Path

import polars as pl
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from goldset_tui.history.format import DISAGREE_LINE, change_text, disagrees, set_change_text
from goldset_tui.history.records import Record, load_records
from goldset_tui.history.timeline import DEFAULT_RECURRING, History, build_history
from goldset_tui.text import visible
from goldset_tui.ui.leaving import LeaveKeys, leave_bindings
from goldset_tui.ui.safe import literal

SAMPLES = 1000  # the paired tests' resamples here: enough for a screen, quick on a laptop


def _ci(ci: list | None) -> str:
    if not ci or any(v is None or v != v for v in ci):
        return "-"
    return f"[{ci[0]:.3f},{ci[1]:.3f}]"


class HistoryScreen(LeaveKeys, Screen[None]):
    DEFAULT_CSS = """
    HistoryScreen #history-releases { height: 1fr; }
    HistoryScreen #history-detail { height: auto; max-height: 5; padding: 0 1; }
    HistoryScreen #history-recurring { height: auto; max-height: 6; }
    HistoryScreen .history-title { padding: 0 1; text-style: bold; }
    HistoryScreen #history-legend { padding: 0 1; display: none; }
    """
    BINDINGS = [
        Binding(
            "d",
            "drill",
            "every release",
            id="history.drill",
            tooltip="Every release's top k with grades for the highlighted recurring failure",
        ),
        Binding(
            "t",
            "topk",
            "top k",
            id="history.topk",
            tooltip="Every system's top k for the highlighted recurring failure in the latest "
            "release (Enter too)",
            show=False,
        ),
        *leave_bindings("history.back", "history.home"),
    ]

    def __init__(self, store: Path, *, metric: str | None = None) -> None:
        super().__init__()
        self.store = Path(store)
        self.metric = metric
        self.history: History | None = None
        self.records: list[Record] = []

    def compose(self) -> ComposeResult:
        yield Static(Text("history: reading..."), id="history-title", classes="history-title")
        # Under the title that explains *: what ‡ means, shown only when a change carries it.
        yield Static(Text(DISAGREE_LINE), id="history-legend")
        yield DataTable(id="history-releases", cursor_type="row", zebra_stripes=True)
        yield Static(Text(""), id="history-detail")
        yield Static(Text(""), id="history-recurring-title", classes="history-title")
        yield DataTable(id="history-recurring", cursor_type="row")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        releases = self.query_one("#history-releases", DataTable)
        for label, key, width in (
            ("system", "system", 10),
            ("release", "release", 15),
            ("n", "n", 4),
            ("mean", "mean", 6),
            ("95% CI", "ci", 13),
            ("change", "change", 8),
            ("set", "set", 5),
        ):
            releases.add_column(label, key=key, width=width)
        recurring = self.query_one("#history-recurring", DataTable)
        columns: tuple[tuple[str, str, int | None], ...] = (
            ("system", "system", 10),
            ("query", "query", 10),
            ("stratum", "stratum", 16),
            ("failed in", "failed", None),
        )
        for name, column, size in columns:
            recurring.add_column(name, key=column, width=size)
        self._load()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _load(self) -> None:
        try:
            records = load_records(self.store)
            history = build_history(records, metric=self.metric, samples=SAMPLES)
        except Exception as exc:  # a damaged record: say which, stay on the screen
            self.app.call_from_thread(self._failed, exc)
            return
        self.app.call_from_thread(self._show, records, history)

    def _failed(self, exc: Exception) -> None:
        self.query_one("#history-title", Static).update(
            literal(f"history: {visible(exc, keep_newlines=False)}", keep_newlines=False)
        )

    def _show(self, records: list[Record], history: History) -> None:
        self.records, self.history = records, history
        k, n = DEFAULT_RECURRING
        # Releases and systems counted apart: the table has a row per system and release.
        releases = len({r["release"] for r in history.releases})
        systems = len({r["system"] for r in history.releases})
        title = (
            f"history of {history.metric}, {releases} release{'s' * (releases != 1)} of "
            f"{systems} system{'s' * (systems != 1)} (* paired change excludes 0)"
            if history.releases
            else "history: no evaluation recorded yet (goldset report ... --store "
            f"{shlex.quote(str(self.store))} --release NAME)"
        )
        self.query_one("#history-title", Static).update(literal(title, keep_newlines=False))
        self.query_one("#history-legend", Static).display = any(
            disagrees(c) for c in history.changes
        )
        table = self.query_one("#history-releases", DataTable)
        changes = {(c["system"], c["to"]): c for c in history.changes}
        for i, rel in enumerate(history.releases):
            change = changes.get((rel["system"], rel["release"]))
            diff = ""
            if change and change["mean_diff"] is not None:
                diff = f"{change['mean_diff']:+.3f}" + ("*" if change["significant"] else "")
                diff += "‡" if disagrees(change) else ""
            table.add_row(
                literal(rel["system"], keep_newlines=False),
                literal(rel["release"], keep_newlines=False),
                Text(str(rel["n"]), justify="right"),
                Text(f"{rel['mean']:.3f}", justify="right"),
                Text(_ci(rel["ci95"])),
                Text(diff, justify="right"),
                Text("moved" if change and change.get("set_changed") else ""),
                key=str(i),
            )
        self.query_one("#history-recurring-title", Static).update(
            Text(
                f"recurring failures (0 in >= {k} of last {n}): {len(history.recurring)}, "
                "Enter: top k, d: all releases"
            )
        )
        recurring = self.query_one("#history-recurring", DataTable)
        for i, row in enumerate(history.recurring):
            recurring.add_row(
                literal(row["system"], keep_newlines=False),
                literal(row["query_id"], keep_newlines=False),
                literal(row["stratum"], keep_newlines=False),
                literal(", ".join(row["failed_in"]), keep_newlines=False),
                key=str(i),
            )
        self._detail(0)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "history-releases":
            self._detail(event.cursor_row)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "history-recurring":
            self._topk(event.cursor_row)

    def _detail(self, index: int) -> None:
        if self.history is None or not 0 <= index < len(self.history.releases):
            return
        rel = self.history.releases[index]
        change = next(
            (
                c
                for c in self.history.changes
                if c["system"] == rel["system"] and c["to"] == rel["release"]
            ),
            None,
        )
        lines = [
            f"{rel['system']} {rel['release']}: "
            + (f"from {change['from']}: {change_text(change)}" if change else "first release")
        ]
        moved = set_change_text(change) if change else None
        if moved:
            lines.append(moved)
        strata = rel["strata"]
        lines.append(
            "  ".join(
                f"{name} {cell['mean']:.2f} {_ci(cell['ci95'])}" for name, cell in strata.items()
            )
        )
        self.query_one("#history-detail", Static).update(literal("\n".join(lines)))

    def action_topk(self) -> None:
        self._topk(self.query_one("#history-recurring", DataTable).cursor_row)

    def _topk(self, index: int) -> None:
        """The review's top k view of the query in the latest release: every system's top k as
        it was scored, the document's text beside it (from the store's pool)."""
        if self.history is None or not 0 <= index < len(self.history.recurring):
            self.notify("No recurring failure to open.", markup=False)
            return
        from goldset_tui.history.release_view import latest_release, release_report

        query_id = self.history.recurring[index]["query_id"]
        metric = self.history.metric
        release = latest_release(self.records, metric)
        recorded = [
            r for r in self.records if r.release == release and r.measure == metric and r.topk
        ]
        if release is None or not any(query_id in r.topk for r in recorded):
            self.notify(
                visible(
                    f"Release {release} recorded no top k for {query_id} (no runs to show): "
                    "d shows what every release recorded.",
                    keep_newlines=False,
                ),
                markup=False,
            )
            return
        from goldset_tui.ui.widgets.report_topk import TopKScreen

        report = release_report(self.records, metric, release)
        self.app.push_screen(TopKScreen(self._release_context(report, release), query_id))

    def _release_context(self, report, release: str):
        from goldset_tui.agreement.sources import store_pool
        from goldset_tui.store.project import Project
        from goldset_tui.ui.review_context import ReviewContext

        project = Project.open(self.store)
        pool = store_pool(project)

        def labelled():
            got = project.judgments().filter(pl.col("grade") >= 0)
            return got.select("query_id", "doc_id", "labeller", pl.col("grade").cast(pl.Int64))

        return ReviewContext(
            report,
            topics=None
            if pool is None
            else pool.select("query_id", "query").unique("query_id", maintain_order=True),
            corpus=None
            if pool is None
            else pool.select("doc_id", "text", "title").unique("doc_id", maintain_order=True),
            source=f"grades as release {release} was scored",
            labelled=labelled,
            store=str(self.store),
        )

    def action_drill(self) -> None:
        self._drill(self.query_one("#history-recurring", DataTable).cursor_row)

    def _drill(self, index: int) -> None:
        if self.history is None or not 0 <= index < len(self.history.recurring):
            self.notify("No recurring failure to drill into.", markup=False)
            return
        from goldset_tui.ui.screens.history_query import HistoryQueryScreen

        row = self.history.recurring[index]
        mine = [
            r
            for r in self.records
            if r.system == row["system"] and r.measure == self.history.metric
        ]
        self.app.push_screen(HistoryQueryScreen(row["query_id"], row["system"], mine))
