"""The top k view's ids in full (``i``): one id a line, never wrapped.

An id wrapped inside itself (``pathlib#PurePath.`` over ``with_suffix``) reads as two ids, and a
half-width column beside the key list wrapped every long one at 80 columns. So the ids get the
whole dialog, each line as long as it is (the box scrolls sideways for one wider than the
screen), and the keys stay under ``?``.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import ScrollableContainer, Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from goldset_tui.ui.safe import literal


class IdsScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    IdsScreen #ids-box { height: auto; max-height: 18; }
    IdsScreen #ids-text { width: auto; }
    """
    BINDINGS = [
        Binding("escape,i,enter", "close", "close", id="ids.close"),
        # q keeps its meaning everywhere (ui/leaving.py): home, or quit without one.
        Binding("q", "app.go_home", "home", id="ids.home", tooltip="Save, back to home"),
    ]

    def __init__(self, title: str, rows: list[tuple[str, str]]) -> None:
        super().__init__()
        self._title = title
        self._rows = rows  # (label, full id)

    def compose(self) -> ComposeResult:
        text = Text(no_wrap=True, overflow="ignore")
        pad = max((len(label) for label, _ in self._rows), default=0)
        for i, (label, doc) in enumerate(self._rows):
            if i:
                text.append("\n")
            text.append_text(literal(label.ljust(pad), keep_newlines=False, style="dim"))
            text.append("  ")
            text.append_text(literal(doc, keep_newlines=False))
        if not self._rows:
            text.append("No documents.")
        with Vertical(classes="dialog ids"):
            yield Static(literal(self._title, keep_newlines=False), classes="dialog-title")
            with ScrollableContainer(id="ids-box"):
                yield Static(text, id="ids-text")
            yield Static("Escape, Enter or i closes", classes="dialog-hint")

    def action_close(self) -> None:
        self.dismiss(None)
