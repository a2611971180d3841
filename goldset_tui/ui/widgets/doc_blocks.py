"""Blocks of a rendered document (paragraph, heading, list item, code) and how they are laid out.

The Markdown and reStructuredText renderers (``doc_markdown``, ``doc_rst``) turn a document into
blocks; this module lays them out as one Rich renderable. Every string from the document enters a
block through :func:`piece`, which replaces control characters with visible placeholders
(``text.visible``) and appends it to a ``rich.text.Text`` as plain text: markup is never parsed
and no style carries a link, so nothing in a document can act (no OSC 8 hyperlink, no
``[@click=...]``, no escape sequence reaches the terminal).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from goldset_tui.text import visible

CODE = "cyan"  # inline code and literal blocks: a 16-colour name, readable on light and dark
QUIET = "dim"  # link targets, raw HTML, comments: shown, not acted on
HEADINGS = {1: "bold underline", 2: "bold", 3: "bold italic"}


def piece(text: Text, data: object, style: str = "") -> None:
    """Append untrusted ``data`` to ``text`` literally (controls made visible, no markup)."""
    text.append(visible(data, reading=True), style=style or None)


@dataclass
class Block:
    text: Text
    indent: int = 0  # columns to the left of the block (nesting)
    prefix: str = ""  # a list marker, hanging: wrapped lines align after it
    gap: bool = True  # a blank line before it (not between the items of a tight list)


def heading_style(level: int) -> str:
    return HEADINGS.get(level, "bold")


def layout(blocks: list[Block], pattern: re.Pattern[str] | None) -> RenderableType:
    """The blocks one under the other, query terms highlighted in each."""
    out: list[RenderableType] = []
    for i, block in enumerate(blocks):
        if pattern is not None:
            block.text.highlight_regex(pattern, style="bold reverse")
        if i and block.gap:
            out.append(Text(""))
        body: RenderableType = block.text
        if block.prefix:
            grid = Table.grid()
            grid.add_column(no_wrap=True)
            grid.add_column(ratio=1)
            grid.add_row(Text(block.prefix, style="bold"), block.text)
            body = grid
        out.append(Padding(body, (0, 0, 0, block.indent)) if block.indent else body)
    return Group(*out)
