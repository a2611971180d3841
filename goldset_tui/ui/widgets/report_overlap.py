"""Failure overlap, drillable: every pair of systems with its miss counts (``o`` from the report
or its whole-report screen); Enter on a pair lists the queries behind the counts (only one
misses, both miss) with what fusion scores on each, so "fusion rescues 3 of the 5 shared misses"
is five rows to read, and Enter on a query opens its top k (n/p along the list)."""

from __future__ import annotations

import polars as pl
from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable, Static

from goldset_tui.eval.overlap import BOTH, ONLY_A, ONLY_B, pair_queries
from goldset_tui.ui.leaving import leave_bindings
from goldset_tui.ui.review_context import ReviewContext
from goldset_tui.ui.safe import literal
from goldset_tui.ui.widgets.report_bar import refilling
from goldset_tui.ui.widgets.report_drill_base import DrillScreen


class OverlapScreen(DrillScreen):
    """Every pair of systems: how many queries each misses, both miss, and the pair's oracle."""

    NOTES = True
    BINDINGS = [
        Binding("enter", "open_pair", "queries", id="overlap_open", tooltip="This pair's queries"),
        *leave_bindings("overlap_back", "overlap_quit", back_keys="escape,backspace"),
    ]

    def refresh_view(self) -> None:
        r = self.context.report
        self.query_one("#drill-title", Static).update(
            literal(f"Failure overlap · {r.metric} · {r.n} queries", keep_newlines=False)
        )
        with refilling(self.query_one(DataTable)) as table:
            for label in ("a", "b", "a misses", "b misses", "both miss", "oracle"):
                table.add_column(Text(label), key=label)
            for i, p in enumerate(r.overlap):
                table.add_row(
                    literal(p["a"], keep_newlines=False),
                    literal(p["b"], keep_newlines=False),
                    Text(str(p["miss_a"]), justify="right"),
                    Text(str(p["miss_b"]), justify="right"),
                    Text(str(p["both_miss"]), justify="right"),
                    Text(f"{p['oracle']:.3f}", justify="right"),
                    key=str(i),
                )
        self.query_one("#drill-notes", Static).update(
            Text(
                "a query misses when its value is 0 · oracle: the better of the two per query · "
                "enter: the pair's queries, with what fusion scores on each",
                style="dim",
            )
        )

    def open_found(self, query_id: str) -> None:
        from goldset_tui.ui.widgets.report_topk import TopKScreen

        self.app.push_screen(TopKScreen(self.context, query_id))

    def highlighted_id(self) -> str | None:
        pair = self._pair()
        return f"{pair['a']} {pair['b']}" if pair else None

    def listed_ids(self) -> list[str]:
        return []

    def _pair(self) -> dict | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        return self.context.report.overlap[table.cursor_row]

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_pair()

    def action_open_pair(self) -> None:
        pair = self._pair()
        if pair is not None:
            self.app.push_screen(OverlapPairScreen(self.context, pair["a"], pair["b"]))


class OverlapPairScreen(DrillScreen):
    """The queries behind one pair's counts: both miss, only a misses, only b misses."""

    NOTES = True
    BINDINGS = [
        Binding("enter", "open_query", "top k", id="pair_open", tooltip="This query's top k"),
        *leave_bindings("pair_back", "pair_quit", back_keys="escape,backspace"),
    ]

    def __init__(self, context: ReviewContext, a: str, b: str) -> None:
        super().__init__(context)
        self.a, self.b = a, b

    def open_found(self, query_id: str) -> None:
        from goldset_tui.ui.widgets.report_topk import TopKScreen

        self.app.push_screen(TopKScreen(self.context, query_id))

    def rows(self) -> pl.DataFrame:
        r = self.context.report
        return pair_queries(r.scores, self.a, self.b, r.fused)

    def listed_ids(self) -> list[str]:
        return self.rows().get_column("query_id").to_list()

    def refresh_view(self) -> None:
        r = self.context.report
        rows = self.rows()
        counts = dict(rows.group_by("case").len().iter_rows())
        both = rows.filter(pl.col("case") == BOTH)
        rescued = int(both.get_column("rescued").sum() or 0) if r.fused else None
        words = {ONLY_A: f"only {self.a} misses", ONLY_B: f"only {self.b} misses", BOTH: BOTH}
        line = (
            f"{self.a} vs {self.b} · both miss {counts.get(BOTH, 0)} · "
            f"only {self.a} misses {counts.get(ONLY_A, 0)} · "
            f"only {self.b} misses {counts.get(ONLY_B, 0)}"
        )
        if rescued is not None:
            line += f" · {r.fused} rescues {rescued} of the {both.height} both miss"
        self.query_one("#drill-title", Static).update(literal(line, keep_newlines=False))
        fused = r.fused or "fused"
        with refilling(self.query_one(DataTable)) as table:
            for label, key in (
                ("query", "query_id"),
                ("case", "case"),
                (self.a, "a"),
                (self.b, "b"),
                (fused, "fused"),
            ):
                table.add_column(literal(label, keep_newlines=False), key=key)
            for q, case, va, vb, vf, ok in rows.iter_rows():
                mark = (
                    Text("-", style="dim")
                    if vf is None
                    else Text(f"{vf:.2f} " + ("rescued" if ok else "missed"), style="bold green")
                    if ok
                    else Text(f"{vf:.2f} missed", style="dim")
                )
                table.add_row(
                    literal(q, keep_newlines=False),
                    literal(words[case], keep_newlines=False),
                    Text(f"{va:.2f}"),
                    Text(f"{vb:.2f}"),
                    mark,
                    key=q,
                )
        self.query_one("#drill-notes", Static).update(
            Text("enter: the query's top k for every system (n/p along this list)", style="dim")
        )

    def export_table(self) -> tuple[list[str], list[list[str]], str]:
        header = ["query", "case", self.a, self.b, self.context.report.fused or "fused"]
        rows = [
            [q, case, f"{va:.4f}", f"{vb:.4f}", "" if vf is None else f"{vf:.4f}"]
            for q, case, va, vb, vf, _ in self.rows().iter_rows()
        ]
        return header, rows, f"overlap-{self.a}-{self.b}"

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_query()

    def action_open_query(self) -> None:
        from goldset_tui.ui.widgets.report_topk import TopKScreen

        q = self.highlighted_id()
        if q is not None:
            self.app.push_screen(TopKScreen(self.context, q, queue=self.listed_ids))
