"""The closure screen: every check of the report's table, and of the sampling table when a sampling
manifest is given, each with expected, actual, residual and pass/fail (seeds 000 and 004: check
that a table closes before reading any row of it)."""

from __future__ import annotations

import math

from rich.text import Text
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from goldset_tui.report.closure import ClosureCheck
from goldset_tui.ui.leaving import LeaveKeys, leave_bindings
from goldset_tui.ui.safe import literal
from goldset_tui.ui.widgets.review_keys import ReviewKeys


def _fmt(x: object) -> str:
    """Whole numbers as they are, fractions to 4 places (1 place from 1000 up, to keep columns
    narrow: closure residuals that matter are either 0 or visibly not)."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    v = float(x)
    if v.is_integer():
        return str(int(v))
    return f"{v:.1f}" if abs(v) >= 1000 else f"{v:.4f}"


def _num(x: object) -> Text:
    if isinstance(x, (int, float)) or x is None:
        return Text(_fmt(x), justify="right")
    return literal(x, keep_newlines=False)


HEADERS = (("ok", "o"), ("check", "c"), ("expected", "e"), ("actual", "a"), ("residual", "r"))
NUMBER_KEYS = ("expected", "actual", "residual")
MIN_NAME_WIDTH = 12
SCROLLBAR = 2  # room kept for the vertical scrollbar, so a long list never pushes "residual" off


def as_rows(checks: list[ClosureCheck] | list[dict]) -> list[dict]:
    rows = []
    for c in checks:
        d = c.to_dict() if isinstance(c, ClosureCheck) else dict(c)
        if "ok" not in d:
            r = d.get("residual")
            d["ok"] = isinstance(r, (int, float)) and math.isfinite(r) and abs(r) <= 1e-9
        rows.append(d)
    return rows


class ClosureScreen(ReviewKeys, LeaveKeys, Screen[None]):
    CSS_PATH = "report.tcss"
    DEFAULT_CSS = """
    ClosureScreen #closure-detail {
        height: auto;
        max-height: 3;
        padding: 0 1;
    }
    """
    # Escape back one screen, q home (or quit without one): the rule of every screen.
    BINDINGS = [*leave_bindings("closure_back", "closure_quit", back_keys="escape,backspace")]

    def __init__(
        self,
        report_checks: list[ClosureCheck] | list[dict],
        *,
        sampling: list[dict] | None = None,
        sampling_source: str | None = None,
        dropped: list[dict] | None = None,
    ) -> None:
        super().__init__()
        self.report_rows = as_rows(report_checks)
        # Golden-set queries the table leaves out, one failing row each, so each is named with
        # its stratum and the reason (no judgments, no relevant document).
        self.dropped_rows = [
            {
                "name": f"{d['query_id']} ({d['stratum'] or 'no stratum'}): {d['why']}",
                "expected": None,
                "actual": None,
                "residual": None,
                "ok": False,
            }
            for d in dropped or []
        ]
        self.sampling_rows = as_rows(sampling) if sampling is not None else None
        self.sampling_source = sampling_source
        self._name_width = 0  # the check column's width the table was last filled for

    def compose(self) -> ComposeResult:
        yield Static(id="closure-title")
        yield DataTable(id="closure-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="closure-detail")
        yield Static(id="closure-notes")
        yield Footer()

    def on_mount(self) -> None:
        rows = self.report_rows + (self.sampling_rows or [])
        failed = sum(1 for r in rows if not r["ok"])
        title = Text(f"Closure: {len(rows)} checks, ")
        title.append(
            f"{failed} failed ✗" if failed else "all pass ✓",
            style="bold red" if failed else "bold green",
        )
        if self.dropped_rows:
            title.append(
                f" · {len(self.dropped_rows)} golden-set quer"
                f"{'y' if len(self.dropped_rows) == 1 else 'ies'} dropped",
                style="bold red",
            )
        self.query_one("#closure-title", Static).update(title)
        self._fill()
        notes = Text("residual = actual - expected; a check passes when it is 0", style="dim")
        if self.sampling_rows is None:
            notes.append(
                " · no sampling manifest (--sampling-manifest FILE adds its checks)", style="dim"
            )
        elif self.sampling_source:
            notes.append(" · sampling: ", style="dim")
            notes.append_text(literal(self.sampling_source, keep_newlines=False))
        self.query_one("#closure-notes", Static).update(notes)
        self.query_one(DataTable).focus()

    def on_resize(self) -> None:
        self._fill()

    def highlighted_id(self) -> str | None:
        """A dropped query's id; else the check's name."""
        rows = self._rows()
        at = self.query_one(DataTable).cursor_row
        if not 0 <= at < len(rows):
            return None
        which, i, r = rows[at]
        if which == "dropped":
            return str(r["name"]).split(" (", 1)[0]
        return str(r.get("name", ""))

    def listed_ids(self) -> list[str]:
        """The golden-set queries the table leaves out."""
        return [str(r["name"]).split(" (", 1)[0] for r in self.dropped_rows]

    def export_table(self) -> tuple[list[str], list[list[str]], str]:
        rows = [
            [
                "ok" if r["ok"] else "FAIL",
                (f"{which} · " if which != "report" else "") + str(r.get("name", "")),
                _fmt(r.get("expected")),
                _fmt(r.get("actual")),
                _fmt(r.get("residual")),
            ]
            for which, _, r in self._rows()
        ]
        return ["ok", "check", "expected", "actual", "residual"], rows, "closure"

    def _rows(self) -> list[tuple[str, int, dict]]:
        """(section, index within it, check) for every row, report first."""
        sections = [
            ("report", self.report_rows),
            ("dropped", self.dropped_rows),
            ("sampling", self.sampling_rows or []),
        ]
        return [(which, i, r) for which, rows in sections for i, r in enumerate(rows)]

    def _name_width_for(self, width: int) -> int:
        """What is left for the check's name once ok, expected, actual and residual have the room
        their values need: names are cut with an ellipsis (the highlighted one is shown in full
        below the table), numbers never are."""
        table = self.query_one(DataTable)
        pad = 2 * table.cell_padding
        numbers = sum(
            max(len(label), *(len(_fmt(r.get(label))) for _, _, r in self._rows())) + pad
            for label in NUMBER_KEYS
        )
        room = max(MIN_NAME_WIDTH, width - (len("ok") + pad) - numbers - pad - SCROLLBAR)
        longest = max(
            [len("check"), *(self._label_of(which, r).cell_len for which, _, r in self._rows())]
        )
        return min(room, longest)  # no wider than the longest name: numbers stay next to the names

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        name_width = self._name_width_for(self.size.width or self.app.size.width)
        if name_width == self._name_width:
            return
        self._name_width = name_width
        row = table.cursor_row if table.row_count else 0
        table.clear(columns=True)
        for label, key in HEADERS:
            table.add_column(Text(label), key=key, width=name_width if key == "c" else None)
        for which, i, r in self._rows():
            # Pass/fail first, so it stays on screen however long the check names are.
            ok = Text("✓", style="bold green") if r["ok"] else Text("✗", style="bold red")
            name = self._label_of(which, r)
            name.truncate(name_width, overflow="ellipsis")
            table.add_row(
                ok,
                name,
                _num(r.get("expected")),
                _num(r.get("actual")),
                _num(r.get("residual")),
                key=f"{which}:{i}",
            )
        if table.row_count:
            table.move_cursor(row=min(row, table.row_count - 1))
        self._show_detail(table.cursor_row)

    @staticmethod
    def _label_of(which: str, r: dict) -> Text:
        name = literal(r.get("name", ""), keep_newlines=False)
        return Text(f"{which} · ", style="italic") + name if which != "report" else name

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.cursor_row)

    def _show_detail(self, index: int) -> None:
        rows = self._rows()
        if not 0 <= index < len(rows):
            return
        which, _, r = rows[index]
        detail = Text("✓ " if r["ok"] else "✗ ", style="bold green" if r["ok"] else "bold red")
        detail.append_text(self._label_of(which, r))
        if which == "dropped":
            detail.append(" · in the golden set (strata file), left out of the table", style="dim")
            self.query_one("#closure-detail", Static).update(detail)
            return
        detail.append(
            f": expected {_fmt(r.get('expected'))}, actual {_fmt(r.get('actual'))}, "
            f"residual {_fmt(r.get('residual'))}",
            style="dim",
        )
        self.query_one("#closure-detail", Static).update(detail)
