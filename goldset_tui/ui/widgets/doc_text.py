"""A document as the judging screen shows it: reflowed to the screen, optionally rendered.

``plain`` (the default) shows the text as written except for hard line breaks inside paragraphs
(``goldset_tui.ui.text.reflow``), so it fills the screen up to the reading width; ``markdown`` and ``rst``
render the document's markup (``doc_markdown``, ``doc_rst``), still literally: no link, image,
HTML or markup in the data can act. Query terms are highlighted in every mode.

The reading width is a maximum: at 160 columns a paragraph runs to ``DEFAULT_TEXT_WIDTH`` columns
and no further (long lines are tiring to read), at 80 it uses the whole width. ``w`` on the
judging screen cycles through ``READING_WIDTHS`` (0: the whole width).
"""

from __future__ import annotations

import re

from rich.console import Group, RenderableType
from rich.text import Text

from goldset_tui.config import RENDERS
from goldset_tui.ui.safe import literal
from goldset_tui.ui.text.reflow import reflow
from goldset_tui.ui.widgets.doc_blocks import layout
from goldset_tui.ui.widgets.doc_markdown import markdown_blocks
from goldset_tui.ui.widgets.doc_marks import MarkedText
from goldset_tui.ui.widgets.doc_rst import rst_blocks
from goldset_tui.ui.widgets.judge_parts import TEXT_PAGE, term_pattern

FOUND = "bold black on yellow"  # a word found with ctrl+f

DEFAULT_RENDER = "plain"
DEFAULT_TEXT_WIDTH = 100
READING_WIDTHS = (72, 88, 100, 120, 0)


def next_width(width: int) -> int:
    """The reading width after ``width`` in the cycle of ``w`` (one not in it goes to the start)."""
    if width in READING_WIDTHS:
        return READING_WIDTHS[(READING_WIDTHS.index(width) + 1) % len(READING_WIDTHS)]
    return READING_WIDTHS[0]


def width_label(width: int) -> str:
    return "the whole width" if not width else f"{width} columns"


def document(
    text: str,
    query: str,
    *,
    render: str = DEFAULT_RENDER,
    limit: int = TEXT_PAGE,
    highlight: str = "forms",
    find: str | None = None,
) -> RenderableType:
    """``text`` (its first ``limit`` characters) as the judging screen shows it in ``render`` mode;
    ``highlight``: the query terms' word forms too, whole "words", or "off" (config.HIGHLIGHTS);
    ``find``: a word searched for in the text (ctrl+f), every match marked, any case."""
    shown = text if len(text) <= limit else text[:limit]
    pattern = None if highlight == "off" else term_pattern(query, forms=highlight == "forms")
    more = (
        Text(
            f"[showing the first {limit:,} of {len(text):,} characters; press m for more]",
            style="italic dim",
        )
        if len(text) > limit
        else None
    )
    if render == "plain":
        # The words are lit where the screen draws them (doc_marks.py): the spans are the ones
        # highlight_regex makes, found as far as the page is drawn.
        marks = [(pattern, "bold reverse")] if pattern is not None else []
        if find:
            marks.append((re.compile(re.escape(find), re.IGNORECASE), FOUND))
        tail = None
        if more is not None:
            tail = Text("\n\n")
            tail.append_text(more)
        return MarkedText(literal(reflow(shown), reading=True), marks, tail)
    if render == "markdown":
        blocks = markdown_blocks(shown)
    elif render == "rst":
        blocks = rst_blocks(shown)
    else:
        raise ValueError(f"render must be one of {', '.join(RENDERS)}, not {render!r}")
    if find:  # rendered blocks take one pattern: the found word joins the query's terms
        found = re.escape(find)
        joined = f"{pattern.pattern}|{found}" if pattern is not None else found
        pattern = re.compile(joined, re.IGNORECASE)
    rendered = layout(blocks, pattern)
    return Group(rendered, Text(""), more) if more is not None else rendered
