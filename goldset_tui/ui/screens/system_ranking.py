"""The systems ranked under two label sets side by side, flips marked (issue 15).

Reached from the agreement screen with ``r`` when ``goldset agreement`` was given runs. Left: the
systems by their mean under the reference labels (``a``, usually the humans); right: under the
labels being tested (``b``, usually the machine). A system in a flip is marked ``<>`` on both
sides and the flips are listed below in words. ``n``/``p`` step through the label-set pairs,
``t`` through the scopes (all queries, then each stratum). System and labeller names are data:
they reach the screen only through ``literal``.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from goldset_tui.ranking.view import flip_lines, scopes, side_by_side
from goldset_tui.ui.leaving import LeaveKeys, leave_bindings
from goldset_tui.ui.safe import literal

MARK = "<>"


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


class SystemRankingScreen(LeaveKeys, Screen[None]):
    BINDINGS = [
        Binding("n", "step(1)", "next pair", id="ranking.next", tooltip="Next pair of label sets"),
        Binding("p", "step(-1)", "previous pair", id="ranking.previous", show=False),
        Binding(
            "t", "scope", "stratum", id="ranking.scope", tooltip="All queries, then each stratum"
        ),
        *leave_bindings("ranking.back", "ranking.quit"),
    ]

    DEFAULT_CSS = """
    SystemRankingScreen #ranking-title { padding: 0 1; text-style: bold; }
    SystemRankingScreen #ranking-sides { height: auto; max-height: 60%; }
    SystemRankingScreen #ranking-a, SystemRankingScreen #ranking-b { width: 1fr; height: auto; }
    SystemRankingScreen #ranking-flips { padding: 0 1; height: 1fr; }
    """

    def __init__(self, ranking: dict[str, Any]) -> None:
        super().__init__()
        self.ranking = ranking
        self.scopes = scopes(ranking)
        self.scope = 0
        self.index = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="ranking-title")
        with Horizontal(id="ranking-sides"):
            yield DataTable(id="ranking-a", cursor_type="none", zebra_stripes=True)
            yield DataTable(id="ranking-b", cursor_type="none", zebra_stripes=True)
        yield Static("", id="ranking-flips")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "System ranking"
        self.sub_title = f"by {self.ranking.get('measure', '?')}"
        self.fill()

    @property
    def pairs(self) -> list[dict[str, Any]]:
        return self.scopes[self.scope][1]

    def fill(self) -> None:
        name, pairs = self.scopes[self.scope]
        title = self.query_one("#ranking-title", Static)
        table_a = self.query_one("#ranking-a", DataTable)
        table_b = self.query_one("#ranking-b", DataTable)
        flips = self.query_one("#ranking-flips", Static)
        for table in (table_a, table_b):
            table.clear(columns=True)
        if not pairs:
            title.update(Text(f"{name}: no pair of label sets to compare"))
            flips.update(Text(""))
            return
        pair = pairs[self.index % len(pairs)]
        heading = Text.assemble(
            (f"{name} {self.index % len(pairs) + 1}/{len(pairs)}: ", ""),
            literal(pair["a"], keep_newlines=False),
            (" vs ", ""),
            literal(pair["b"], keep_newlines=False),
        )
        heading.append(f"  tau {_num(pair.get('kendall_tau'))}  tau_AP {_num(pair.get('tau_ap'))}")
        title.update(heading)
        table_a.add_columns("#", literal(pair["a"], keep_newlines=False), "mean")
        table_b.add_columns("#", literal(pair["b"], keep_newlines=False), "mean")
        for row in side_by_side(pair):
            for table, system, mean, flipped in (
                (table_a, row.system_a, row.mean_a, row.flipped_a),
                (table_b, row.system_b, row.mean_b, row.flipped_b),
            ):
                label = literal(system, keep_newlines=False)
                if flipped:
                    label = Text.assemble(label, (f" {MARK}", "bold"))
                    label.stylize("reverse")
                table.add_row(Text(str(row.rank), justify="right"), label, Text(_num(mean)))
        lines = [literal(line, keep_newlines=False) for line in flip_lines(pair)]
        body = Text(f"Flips ({len(lines)}), marked {MARK}:\n" if lines else "No flip: ")
        if not lines:
            body.append(pair.get("note") or "both label sets order the systems the same way")
        for line in lines:
            body.append_text(line)
            body.append("\n")
        flips.update(body)

    def action_step(self, delta: int) -> None:
        if self.pairs:
            self.index = (self.index + delta) % len(self.pairs)
            self.fill()

    def action_scope(self) -> None:
        self.scope = (self.scope + 1) % len(self.scopes)
        self.index = 0
        self.fill()
