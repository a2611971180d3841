"""The closure screen: every check of the report's table, and of the sampling table when a sampling
manifest is given, each with expected, actual, residual and pass/fail (seeds 000 and 004: check
that a table closes before reading any row of it)."""

from __future__ import annotations

import math

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from goldset_tui.closure import ClosureCheck
from goldset_tui.ui.safe import literal


def _num(x: object) -> Text:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return Text("-", justify="right")
    if isinstance(x, (int, float)):
        v = float(x)
        return Text(str(int(v)) if v.is_integer() else f"{v:.4f}", justify="right")
    return literal(x, keep_newlines=False)


def as_rows(checks: list[ClosureCheck] | list[dict]) -> list[dict]:
    rows = []
    for c in checks:
        d = c.to_dict() if isinstance(c, ClosureCheck) else dict(c)
        if "ok" not in d:
            r = d.get("residual")
            d["ok"] = isinstance(r, (int, float)) and math.isfinite(r) and abs(r) <= 1e-9
        rows.append(d)
    return rows


class ClosureScreen(Screen[None]):
    CSS_PATH = "report.tcss"
    BINDINGS = [
        Binding("escape,backspace", "back", "back", id="closure_back", tooltip="Back"),
        Binding("q", "app.quit", "quit", id="closure_quit", tooltip="Quit"),
    ]

    def __init__(self, report_checks: list[ClosureCheck] | list[dict], *, sampling: list[dict] | None = None,
                 sampling_source: str | None = None) -> None:
        super().__init__()
        self.report_rows = as_rows(report_checks)
        self.sampling_rows = as_rows(sampling) if sampling is not None else None
        self.sampling_source = sampling_source

    def compose(self) -> ComposeResult:
        yield Static(id="closure-title")
        yield DataTable(id="closure-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="closure-notes")
        yield Footer()

    def on_mount(self) -> None:
        rows = self.report_rows + (self.sampling_rows or [])
        failed = sum(1 for r in rows if not r["ok"])
        title = Text(f"Closure: {len(rows)} checks, ")
        title.append(f"{failed} failed ✗" if failed else "all pass ✓", style="bold red" if failed else "bold green")
        self.query_one("#closure-title", Static).update(title)
        table = self.query_one(DataTable)
        for label, key in (("ok", "o"), ("check", "c"), ("expected", "e"), ("actual", "a"), ("residual", "r")):
            table.add_column(Text(label), key=key)
        self._add(table, "report", self.report_rows)
        if self.sampling_rows is not None:
            self._add(table, "sampling", self.sampling_rows)
        notes = Text("residual = actual - expected; a check passes when it is 0", style="dim")
        if self.sampling_rows is None:
            notes.append(" · no sampling manifest (--sampling-manifest FILE adds its checks)", style="dim")
        elif self.sampling_source:
            notes.append(" · sampling: ", style="dim")
            notes.append_text(literal(self.sampling_source, keep_newlines=False))
        self.query_one("#closure-notes", Static).update(notes)
        table.focus()

    def _add(self, table: DataTable, which: str, rows: list[dict]) -> None:
        for i, r in enumerate(rows):
            # Pass/fail first, so it stays on screen however long the check names are.
            ok = Text("✓", style="bold green") if r["ok"] else Text("✗", style="bold red")
            name = literal(r.get("name", ""), keep_newlines=False)
            if which != "report":
                name = Text(f"{which} · ", style="italic") + name
            table.add_row(ok, name, _num(r.get("expected")),
                          _num(r.get("actual")), _num(r.get("residual")), key=f"{which}:{i}")

    def action_back(self) -> None:
        self.app.pop_screen()
