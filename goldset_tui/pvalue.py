"""One text form for every p-value the tools print.

A randomization p-value is ``(1 + extreme) / (1 + samples)``: never 0. Printed with fixed decimals,
``1 / 20001`` reads "0.0000", which says the impossible. :func:`p_value_text` prints a p-value that
rounds to 0 at ``digits`` decimals as ``< 0.0001`` (the bound the printed digits can carry), and
every other one with ``digits`` decimals. JSON keeps the exact number; this is for text alone.
"""

from __future__ import annotations

import math


def p_value_text(p: float | None, digits: int = 4) -> str:
    """``"0.0123"``, ``"< 0.0001"`` (below the last printed digit), or ``"-"`` (no p-value)."""
    if p is None or not math.isfinite(p):
        return "-"
    floor = 10.0**-digits
    if p < floor:
        return f"< {floor:.{digits}f}"
    return f"{p:.{digits}f}"
