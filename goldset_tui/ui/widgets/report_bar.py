"""An interval drawn as a bar on the 0-1 scale, for the report's table cells.

``0.44 ──━━━━●━━━━──────`` : the heavy stretch is the 95% interval, the dot the mean. Symbols, not
colour alone, carry the meaning, so it reads the same in 16 colours and in a monochrome capture.
Also what the report's tables and its drill-down tables share: the refill and the system columns.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich.text import Text

from goldset_tui.text import visible
from goldset_tui.ui.safe import literal
from goldset_tui.ui.text.shorten import distinct_forms

if TYPE_CHECKING:
    from textual.widgets import DataTable

LIGHT = "─"
HEAVY = "━"
DOT = "●"


def interval_bar(mean: float, lo: float, hi: float, width: int, *, small: bool = False) -> Text:
    """``width`` cells spanning [0, 1]: a cell is part of the interval when it overlaps [lo, hi]."""
    width = max(3, width)
    text = Text(no_wrap=True, overflow="crop")
    if not all(math.isfinite(x) for x in (mean, lo, hi)):
        return Text(" " * width)
    dot = min(width - 1, int(mean * width))
    first = min(width - 1, int(lo * width))
    last = min(width - 1, max(first, math.ceil(hi * width) - 1))
    style = "dim" if small else "bold"
    for i in range(width):
        if i == dot:
            text.append(DOT, style="bold")
        elif first <= i <= last:
            text.append(HEAVY, style=style)
        else:
            text.append(LIGHT, style="dim")
    return text


def cell(
    mean: float,
    lo: float,
    hi: float,
    width: int,
    *,
    hits: int | None = None,
    n: int | None = None,
    small: bool = False,
    figures: str | None = None,
) -> Text:
    """A table cell: the mean (or for a small binary stratum the count first) then the bar;
    ``figures`` (the Markdown's ``4/5 · 0.800 [0.376, 0.964]``) in place of the mean when the
    screen is wide enough for both."""
    if figures is not None:
        head = Text(f"{figures} ", style="bold" if small else "")
    elif small and hits is not None and n is not None:
        head = Text(f"{hits}/{n} ", style="bold")
    else:
        head = Text(f"{mean:.2f} " if math.isfinite(mean) else "  -  ")
    return head + interval_bar(mean, lo, hi, width, small=small)


@contextmanager
def refilling(table: DataTable) -> Iterator[DataTable]:
    """Empty ``table``, columns too, for the caller to fill; then put the cursor back where it was
    (clamped: a refresh can drop rows). Refilled after judging, the cursor stays where the reader
    left it, or an arrow key pressed meanwhile seems lost when it jumps back to the corner."""
    where = table.cursor_coordinate if table.row_count else None
    table.clear(columns=True)
    yield table
    if where is not None and table.row_count and table.columns:
        table.move_cursor(
            row=min(where.row, table.row_count - 1),
            column=min(where.column, len(table.columns) - 1),
            animate=False,
        )


SYSTEM_KEY = "sys:"


def add_system_columns(
    table: DataTable, systems: list[str], forms: dict[str, str] | None = None
) -> None:
    """One column per system, headed by its name (literally, or its shortened form from
    ``forms``), keyed ``sys:NAME``."""
    for s in systems:
        shown = visible(s, keep_newlines=False)
        label = (forms or {}).get(shown, shown)
        table.add_column(literal(label, keep_newlines=False), key=f"{SYSTEM_KEY}{s}")


def system_forms(systems: list[str], width: int) -> dict[str, str]:
    """Each system's name cut in the middle to ``width`` cells, distinct names kept distinct
    (``lexical-b…-tuned-v2``): a long run name must not widen its column past the screen."""
    return distinct_forms([visible(s, keep_newlines=False) for s in systems], max(4, width))
