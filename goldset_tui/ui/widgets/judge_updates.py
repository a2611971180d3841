"""Updating the judging screen's lines for as little work as each key needs.

A key changes a few lines of the screen; Textual redraws the widgets told to update and, when one
may have changed size, lays out the whole screen again (about a third of the CPU a key costs on
80x24). So: a widget whose content did not change is not touched; a fixed-size one is updated
without a layout pass; a height-auto one (the candidate line, the document) gets a layout pass only
when its number of lines at its width changes. What is shown is the same; only the work differs.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual.widgets import Static


def put(widget: Static, content: Text) -> None:
    """Update a widget whose box never changes size (a fixed height, a 1fr width)."""
    if not _same(widget, content):
        widget.update(content, layout=False)


def put_sized(widget: Static, content: RenderableType, *, cap: int | None = None) -> None:
    """Update a height-auto widget, with a layout pass only if its height changes (``cap``: the
    max-height its CSS gives it, beyond which the height does not change)."""
    if _same(widget, content):
        return
    width, height = widget.content_region.width, widget.content_region.height
    if not isinstance(content, Text) or width <= 0:
        widget.update(content)  # a rendered document: its height is known only by rendering it
        return
    lines = len(content.wrap(widget.app.console, width))
    widget.update(content, layout=(min(lines, cap) if cap else lines) != height)


def _same(widget: Static, content: RenderableType) -> bool:
    shown = widget.content
    return isinstance(shown, Text) and isinstance(content, Text) and shown == content
