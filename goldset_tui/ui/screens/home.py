"""The home screen (`goldset` alone): every store goldset knows (home_scan.py; `goldset --store
DIR`: that one), each labeller's progress, and from there judging, the agreement screen, and the
report and closure screens of `goldset review` on the selected project's store.

Progress needs each pool's size, which means reading the pool: that runs in a worker, one project
at a time, and fills the table in as it goes; the list itself shows at once. The report reads the
pool again and computes every table, so it is built in a worker too and pushed when ready.

Spot-check sessions are not listed: their stores record neither the LABELS file nor the sample
they were drawn from, so a session cannot be rebuilt from here (`goldset spotcheck LABELS` resumes).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static
from textual.worker import get_current_worker

from goldset_tui.eval.defaults import AGREEMENT_REPLICATES
from goldset_tui.text import visible
from goldset_tui.ui.leaving import LeaveKeys
from goldset_tui.ui.safe import literal
from goldset_tui.ui.screens.home_scan import Row, pairs_per_query, scan, share_size
from goldset_tui.ui.screens.home_text import detail_text, hint_text
from goldset_tui.ui.screens.report import ReportScreen, ReviewContext
from goldset_tui.ui.text import when
from goldset_tui.ui.text.project_names import distinct_names
from goldset_tui.ui.text.shorten import distinct_forms
from goldset_tui.ui.text.when import WIDTH, short_time

if TYPE_CHECKING:
    from goldset_tui.ui.screens.judge import JudgeScreen

PROJECT_WIDTH = 22
__all__ = ["HomeScreen", "Row", "distinct_names", "scan"]  # Row, scan: home_scan.py (no Textual)


class HomeScreen(LeaveKeys, Screen[None]):
    # Screens opened from here go back to it with q (ui/leaving.py); here q quits.
    IS_HOME = True
    BINDINGS = [
        # priority: the table's own enter (select row) would otherwise hide this one from the footer
        Binding(
            "enter",
            "judge",
            "judge",
            id="home.judge",
            tooltip="Judge the selected project as its labeller",
            priority=True,
        ),
        Binding(
            "a",
            "judge_as",
            "judge as",
            id="home.judge_as",
            tooltip="Judge the selected project under another name",
        ),
        Binding(
            "A",
            "agreement",
            "agreement",
            id="home.agreement",
            tooltip="Inter-labeller agreement of the selected project",
        ),
        Binding(
            "v",
            "review",
            "review",
            id="home.review",
            tooltip="Stratified report of the selected project, with its labeller's judgments",
        ),
        Binding(
            "c",
            "closure",
            "closure",
            id="home.closure",
            tooltip="Closure checks of the selected project's report",
        ),
        Binding(
            "h",
            "history",
            "history",
            id="home.history",
            tooltip="Recorded releases of the selected project over time, and recurring failures",
        ),
        Binding(
            "question_mark",
            "keys",
            "keys",
            id="home.keys",
            tooltip="Every key of this screen",
            show=False,  # named in the hint line instead: the footer is full at 80 columns
        ),
        # Out of the footer (full at 80 columns) so that h is in it: refreshing is rarer than
        # opening a project's history; r is listed under ? and in the palette.
        Binding(
            "r",
            "rescan",
            "refresh",
            id="home.refresh",
            tooltip="Look for projects again",
            show=False,
        ),
        Binding("q", "app.go_home", "quit", id="home.quit", tooltip="Quit"),
    ]

    def __init__(self, root: Path | None = None, *, stores: list[Path] | None = None) -> None:
        """``root``: list the stores in that folder only; ``stores``: exactly these (`goldset
        --store DIR`); neither: every store goldset knows (home_scan.py)."""
        super().__init__()
        self._root = root
        self._stores = stores
        self._rows: list[Row] = []
        self._sizes: dict[Path, dict[str, int] | None] = {}  # pairs per query of each pool
        self._assigned: dict[tuple[Path, str | None], int | None] = {}
        self._shown_once = False
        self._hint_before: object = None  # the hint line while a report is computed

    def compose(self) -> ComposeResult:
        yield Static(Text("goldset: projects", style="bold"), id="home-title")
        yield DataTable(id="projects", cursor_type="row", zebra_stripes=True)
        yield Static(Text(""), id="home-detail")
        yield Static(Text(""), id="home-hint")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        columns = [
            ("project", "project", PROJECT_WIDTH),
            ("labeller", "labeller", 12),
            ("judged", "judged", 8),
            ("of", "of", 9),
            ("pct", "%", 4),
            ("last", "last session", WIDTH),
            ("pool", "pool", None),
        ]
        for key, label, width in columns:
            table.add_column(label, key=key, width=width)
        self.action_rescan()

    def action_keys(self) -> None:
        from goldset_tui.ui.screens.help import HelpScreen, keys_table

        text = (
            "Every store goldset has made or opened, one row per labeller. "
            "Enter judges the selected row as its labeller; the other keys open the same "
            "project's screens."
        )
        self.app.push_screen(HelpScreen(text, keys_table(self), title="Keys"))

    def action_rescan(self) -> None:
        before = self._selected()  # the cursor stays on the same project and labeller
        self._rows = scan(self._root) if self._stores is None else scan(stores=self._stores)
        table = self.query_one(DataTable)
        table.clear()
        now = when.local_now()
        # Long names cut in the middle, every one kept distinct ("runs-2024-a…/pool" against
        # "runs-2024-b…/pool", not two "…/pool"): what tells them apart survives the cut.
        shown = distinct_forms(
            (visible(r.project, keep_newlines=False) for r in self._rows), PROJECT_WIDTH
        )
        for i, row in enumerate(self._rows):
            table.add_row(
                Text(shown[visible(row.project, keep_newlines=False)], no_wrap=True),
                literal(row.labeller or "(nobody yet)", keep_newlines=False),
                Text(f"{row.judged:,}", justify="right"),
                Text("...", justify="right"),
                Text("", justify="right"),
                Text(short_time(row.last, now)),
                literal(str(row.pool), keep_newlines=False),
                key=str(i),
            )
        if before is not None:
            same = (before.store, before.labeller)
            for i, row in enumerate(self._rows):
                if (row.store, row.labeller) == same:
                    table.move_cursor(row=i)
        hint = hint_text(self._rows, root=self._root, stores=self._stores)
        self.query_one("#home-hint", Static).update(hint)
        self._show_detail()
        self._measure()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        row = self._selected()
        detail = Text()
        if row is not None:  # stores from anywhere (no root): the detail names the store's folder
            assigned = self._assigned.get((row.store, row.labeller))
            width = self.size.width or 80
            detail = detail_text(row, assigned=assigned, with_store=self._root is None, width=width)
        self.query_one("#home-detail", Static).update(detail)

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _measure(self) -> None:
        for store in dict.fromkeys(r.store for r in self._rows):
            if store not in self._sizes:
                pool = next(r.pool for r in self._rows if r.store == store)
                self._sizes[store] = pairs_per_query(pool)
            sizes = {
                r.labeller: share_size(r, self._sizes[store])
                for r in self._rows
                if r.store == store
            }
            self.app.call_from_thread(self._show_size, store, sizes)

    def _show_size(self, store: Path, sizes: dict[str | None, int | None]) -> None:
        table = self.query_one(DataTable)
        for i, row in enumerate(self._rows):
            if row.store != store:
                continue
            size = sizes.get(row.labeller)
            self._assigned[(store, row.labeller)] = size if row.plan is not None else None
            # A planned share is what the labeller has to do: 112 of 1,195 assigned, not of
            # the pool's 2,005 (the detail line says which it is).
            of = "?" if size is None else f"{size:,}" + (" a" if row.plan is not None else "")
            table.update_cell(str(i), "of", Text(of, justify="right"))
            pct = f"{100 * row.judged / size:.0f}%" if size else ""
            table.update_cell(str(i), "pct", Text(pct, justify="right"))
        self._show_detail()

    def _selected(self) -> Row | None:
        table = self.query_one(DataTable)
        if not self._rows or table.cursor_row is None or table.cursor_row >= len(self._rows):
            return None
        return self._rows[table.cursor_row]

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_judge()

    def action_judge(self) -> None:
        row = self._selected()
        if row is None:
            # Enter on an empty list used to do nothing at all: say what would help instead.
            self.notify(
                "No project to open yet: try goldset demo, or goldset judge POOL --labeller NAME.",
                markup=False,
            )
            return
        if row.labeller is None:
            self.action_judge_as()
            return
        self._open(row, row.labeller)

    def action_judge_as(self) -> None:
        from goldset_tui.ui.screens.prompts import TextPrompt

        row = self._selected()
        if row is None:
            return
        self.app.push_screen(
            TextPrompt("Judge as which labeller?", placeholder="your name"),
            lambda name: self._open(row, name.strip()) if name and name.strip() else None,
        )

    def _open(self, row: Row, labeller: str) -> None:
        from goldset_tui.app.judging import open_judging
        from goldset_tui.ui.opening import judge_screen

        try:
            screen = judge_screen(open_judging(row.pool, labeller, store=row.store))
        except Exception as exc:  # bad pool, store locked: one line, stay here
            self.notify(
                visible(exc, keep_newlines=False), severity="error", markup=False, timeout=10
            )
            return
        judged = replace(row, labeller=labeller)
        screen.home_commands = [
            (
                f"Review {row.project} with {labeller}'s judgments",
                "save, go home and open the report screen (v)",
                partial(self._leave_then_review, screen, judged, closure=False),
            ),
            (
                f"Closure checks of {row.project} with {labeller}'s judgments",
                "save, go home and open the closure screen (c)",
                partial(self._leave_then_review, screen, judged, closure=True),
            ),
        ]
        self.app.push_screen(screen)

    def on_screen_resume(self) -> None:
        # Back from judging, a report (its judging writes grades) or anything else: new counts.
        # The first resume is the screen's first showing, which on_mount has scanned already.
        if self._shown_once:
            self.action_rescan()
        self._shown_once = True

    async def _leave_then_review(self, screen: JudgeScreen, row: Row, *, closure: bool) -> None:
        await screen.action_leave()  # flushes the writer, so the report sees every grade
        if not screen.left:
            # Judging stayed: a grade failed to save, and the labeller is on it. (Still on the
            # stack is no sign: Textual pops the screens it leaves a moment later.)
            return
        self._start_review(row, closure=closure)

    def action_agreement(self) -> None:
        """The agreement screen of the selected project (needs two labellers with judgments)."""
        row = self._selected()
        if row is None:
            return
        try:
            from goldset_tui.agreement.sources import from_store, strata_of, without_machines
            from goldset_tui.ui.screens.agreement import AgreementScreen

            # Humans only, as `goldset agreement` reports them: an imported machine judge is one
            # more rater reported apart, never a third labeller in the human figures.
            data = without_machines(from_store(row.store))
            if data.ratings.get_column("labeller").n_unique() < 2:
                self.notify("Agreement needs judgments from at least two labellers.", markup=False)
                return
            screen = AgreementScreen(
                data, strata=strata_of(data, None), seed=0, replicates=AGREEMENT_REPLICATES
            )
        except Exception as exc:  # a damaged store or a moved pool: say so, stay here
            self.notify(
                visible(exc, keep_newlines=False), severity="error", markup=False, timeout=10
            )
            return
        self.app.push_screen(screen)

    def action_history(self) -> None:
        """The history screen of the selected project (docs/history.md)."""
        row = self._selected()
        if row is not None:
            from goldset_tui.ui.screens.history import HistoryScreen

            self.app.push_screen(HistoryScreen(row.store))

    # ----- review: the report and closure screens of `goldset review --store` -------------------
    def action_review(self) -> None:
        """The report screen on the selected project, from its labeller's judgments."""
        row = self._selected()
        if row is not None:
            self._start_review(row, closure=False)

    def action_closure(self) -> None:
        """The closure screen of the same report (no sampling manifest: a store does not name one)."""
        row = self._selected()
        if row is not None:
            self._start_review(row, closure=True)

    def _start_review(self, row: Row, *, closure: bool) -> None:
        if row.labeller is None:
            self.notify(
                visible(f"Nobody has judged {row.project} yet: there is no report to show."),
                markup=False,
            )
            return
        # Said in the hint line, not in a toast: a toast outlived the computation and covered
        # the report's first frame at 80x24.
        self._hint_before = self.query_one("#home-hint", Static).content
        self.query_one("#home-hint", Static).update(
            literal(
                f"Computing the report of {row.project} from {row.labeller}'s judgments...",
                keep_newlines=False,
                style="bold",
            )
        )
        self._build_review(row, closure)

    def _restore_hint(self) -> None:
        before = getattr(self, "_hint_before", None)
        if before is not None:
            self.query_one("#home-hint", Static).update(before)
            self._hint_before = None

    @work(thread=True, exclusive=True, group="review", exit_on_error=False)
    def _build_review(self, row: Row, closure: bool) -> None:
        from goldset_tui.app.review import review_for_store
        from goldset_tui.ui.opening import review_context

        try:
            assert row.labeller is not None  # _start_review returned early without one
            context = review_context(review_for_store(row.store, row.labeller))
        except (
            Exception
        ) as exc:  # no systems/ranks or strata in the pool, a moved pool: one line, stay here
            self.app.call_from_thread(self._review_failed, row, exc)
            return
        if (
            not get_current_worker().is_cancelled
        ):  # a second v while this one ran: only the last opens
            self.app.call_from_thread(self._show_review, context, closure)

    def _review_failed(self, row: Row, exc: Exception) -> None:
        self._restore_hint()
        self.notify(
            visible(f"No report for {row.project}: {exc}", keep_newlines=False),
            severity="warning",
            markup=False,
            timeout=10,
        )

    def _show_review(self, context: ReviewContext, closure: bool) -> None:
        self._restore_hint()
        if self.app.screen is not self:
            return  # the user went elsewhere while the report was computed: do not jump
        if closure:
            from goldset_tui.report.format import dropped_rows
            from goldset_tui.ui.screens.closure import ClosureScreen

            self.app.push_screen(
                ClosureScreen(
                    context.report.closure,
                    sampling=context.sampling_closure,
                    sampling_source=context.sampling_source,
                    dropped=dropped_rows(context.report),
                )
            )
        else:
            # Judging the report's holes writes into the store: show the new counts on the way back.
            self.app.push_screen(ReportScreen(context))

    def palette_commands(self) -> list[tuple[str, str, object]]:
        out: list[tuple[str, str, object]] = []
        for row in self._rows:
            if row.labeller:
                out.append(
                    (
                        f"Judge {row.project} as {row.labeller}",
                        str(row.store),
                        lambda r=row: self._open(r, r.labeller),
                    )
                )
                out.append(
                    (
                        f"Review {row.project} with {row.labeller}'s judgments",
                        "report screen (v)",
                        lambda r=row: self._start_review(r, closure=False),
                    )
                )
                out.append(
                    (
                        f"Closure checks of {row.project} with {row.labeller}'s judgments",
                        "closure screen (c)",
                        lambda r=row: self._start_review(r, closure=True),
                    )
                )
        if self._rows:
            out.append(
                (
                    "History of the selected project",
                    "releases over time, paired changes, recurring failures (h)",
                    self.action_history,
                )
            )
            out.append(
                (
                    "Agreement of the selected project",
                    "kappa, alpha and disagreements (A)",
                    self.action_agreement,
                )
            )
        return out
