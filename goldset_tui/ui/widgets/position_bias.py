"""Position bias in full, as a modal over the agreement screen: per labeller, grade and relevant
rate by shown position and by time into a sitting, with the within-query trends.

Labeller names are data: they reach the screen only through ``literal``.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from goldset_tui.pvalue import p_value_text
from goldset_tui.ui.safe import literal


def _num(x: float | None, fmt: str = ".2f") -> str:
    return "-" if x is None else format(x, fmt)


def trend_text(trend: dict[str, Any], unit: str) -> Text:
    """ "grade -0.05 per 10 positions (p 0.40)": the within-query trend in one line."""
    if trend.get("too_few"):  # a slope from a handful of judgments is noise (agreement.position)
        return Text(
            f"too few judgments for a trend ({trend['judgments']}; {trend['min_judgments']} needed)"
        )
    if trend.get("too_short"):  # a slope per 10 minutes from a shorter sitting (agreement.position)
        return Text(
            f"sittings too short for a trend (judgments span {trend['span']:.1f} minutes; "
            f"{trend['min_span']:g} needed)"
        )
    p = trend["grade_p_value"]
    p_text = p_value_text(p, 3)
    return Text(f"grade {_num(trend['grade_per_10'], '+.2f')} per 10 {unit} (p {p_text})")


def bias_renderable(bias: list[dict[str, Any]]) -> Group:
    parts: list[Any] = []
    for r in bias:
        heading = Text.assemble(("\n", ""), literal(r["labeller"], keep_newlines=False))
        heading.stylize("bold")
        parts.append(heading)
        for part, label, unit in (
            ("position", "shown at", "positions"),
            ("time", "into sitting", "minutes"),
        ):
            table = Table(show_edge=False, pad_edge=False)
            for column in (
                label,
                "n",
                "mean grade",
                f"relevant (>={r['relevant_from']})",
                "vs query",
            ):
                table.add_column(column, justify="right", no_wrap=True)
            for b in r[f"by_{part}"]:
                if not b["n"]:
                    continue  # an empty band is a row of dashes
                table.add_row(
                    b["band"],
                    str(b["n"]),
                    _num(b["mean_grade"]),
                    _num(b["relevant_rate"]),
                    _num(b["vs_query"], "+.2f"),
                )
            parts.append(table)
            line = trend_text(r[f"{part}_trend"], unit)
            if part == "time":
                line.append(f"; {r['sittings']} sitting{'s' * (r['sittings'] != 1)}")
            parts.append(line)
    parts.append(
        Text(
            "\nEach labeller sees a query's documents in a random order, so a trend within a query "
            "is the labeller's (fatigue, anchoring), not the documents'. vs query: grade minus the "
            "labeller's mean in that query. A sitting ends after "
            f"{bias[0]['gap_minutes']:g} idle minutes."
            if bias
            else "No shown positions recorded.",
            style="dim",
        )
    )
    return Group(*parts)


class PositionBiasScreen(ModalScreen[None]):
    BINDINGS = [
        Binding(
            "escape,b",
            "close",
            "close",
            id="position_bias.close",
            tooltip="Back to the agreement screen",
        ),
        # q keeps its meaning everywhere (ui/leaving.py): home, or quit without one.
        Binding("q", "app.go_home", "home", id="position_bias.home", tooltip="Back to home"),
    ]

    DEFAULT_CSS = """
    PositionBiasScreen #position-bias { width: 90%; height: 90%; border: thick $primary;
        background: $surface; padding: 0 1; }
    """

    def __init__(self, bias: list[dict[str, Any]]) -> None:
        super().__init__()
        self._bias = bias

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="position-bias"):
            yield Static(bias_renderable(self._bias), id="position-bias-body")

    def action_close(self) -> None:
        self.dismiss(None)
