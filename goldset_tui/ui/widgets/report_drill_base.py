"""What the review's drill-down screens share: a title, a table, notes, the review keys
(``ui/widgets/review_keys.py``), a refill whenever judging changes the report, and the way into
judging the pairs nobody has judged yet (unjudged documents count as not relevant, so holes in the
pool bias the numbers low)."""

from __future__ import annotations

from typing import ClassVar

import polars as pl
from rich.text import Text
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static
from textual.widgets.data_table import CursorType

from goldset_tui.text import visible
from goldset_tui.ui.leaving import LeaveKeys
from goldset_tui.ui.review_context import ReviewContext
from goldset_tui.ui.widgets.review_keys import ReviewKeys

UNJUDGED = "?"


class DrillScreen(ReviewKeys, LeaveKeys, Screen[None]):
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


def fit(text: Text, width: int) -> Text:
    text.truncate(width, overflow="ellipsis")
    return text


def doc_cell(row: dict, forms: dict[str, str]) -> Text:
    grade = row["grade"]
    mark = Text(
        f"[{grade}] " if grade is not None else f"[{UNJUDGED}] ",
        style=("bold green" if grade and grade > 0 else "dim")
        if grade is not None
        else "bold yellow",
    )
    shown = visible(row["doc_id"], keep_newlines=False)
    return mark + Text(forms.get(shown, shown), no_wrap=True, overflow="crop")


def start_judging(screen: DrillScreen, pairs: pl.DataFrame | None) -> None:
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
    pairs = _without_disagreements(screen, pairs)
    if pairs is None:
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


def _without_disagreements(screen: DrillScreen, pairs: pl.DataFrame) -> pl.DataFrame | None:
    """In the consensus view a hole may be a disagreement nobody decided: one more labeller's
    grade is not what it needs, an adjudication is. Those pairs are named with the command that
    decides them; the rest go to judging (None: nothing left to judge)."""
    context = screen.context
    if context.consensus_key is None or context.source_key != context.consensus_key:
        return pairs
    graded = context.labellers_grades()
    if graded is None or graded.height == 0:
        return pairs
    split = (
        graded.filter(pl.col("grade") >= 0)
        .group_by("query_id", "doc_id")
        .agg(kinds=pl.col("grade").n_unique())
        .filter(pl.col("kinds") > 1)
        .select("query_id", "doc_id")
    )
    undecided = pairs.join(split, on=["query_id", "doc_id"], how="semi")
    if undecided.height == 0:
        return pairs
    store = context.store or "DIR"
    who = context.judge_as or "NAME"
    screen.notify(
        visible(
            f"{undecided.height} of these {pairs.height} hole(s) are disagreements nobody has "
            f"decided: adjudicate them (goldset adjudicate --store {store} --labeller {who}); "
            "J judges only the pairs nobody graded.",
            keep_newlines=False,
        ),
        markup=False,
        timeout=12,
    )
    rest = pairs.join(split, on=["query_id", "doc_id"], how="anti")
    return rest if rest.height else None
