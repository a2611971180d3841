"""The judging screen's status bar: the progress (or a routine message) on the left, the saved
cell on the right.

The bar owns what it shows: ``saved`` (what the saved cell says: "saving…", "✓ saved #3=1",
"✗ NOT SAVED: …") and ``message`` (a routine message that takes the progress's place for a
while) are reactive, and setting either redraws the bar. Both are set on every assignment, even
to an equal value (``always_update``): whoever sets the saved cell may rely on the bar being
drawn afresh, as it was when the screen redrew it by hand. Nothing is drawn while the bar is not
on an app's screen (before the session arrived, or after the app exited: ``flush`` may still
record a failed save in ``saved``, which the command's exit line then reads).

The saved indicator has its own cell, right-aligned, so narrow terminals clip progress text
before they clip the one thing that must never be hidden.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import var
from textual.widgets import Static

from goldset_tui.judging import JudgingSession
from goldset_tui.ui.widgets import judge_parts as parts
from goldset_tui.ui.widgets.judge_updates import put


class StatusBar(Horizontal):
    saved: var[Text] = var(Text(""), init=False, always_update=True)
    message: var[Text | None] = var(None, init=False, always_update=True)

    def __init__(self) -> None:
        super().__init__(id="statusbar")
        # The progress comes from the session (set by the screen once it is loaded); the bar is
        # drawn only from then on.
        self.session: JudgingSession | None = None
        self._progress = Static(Text(""), id="status")
        self._saved_cell = Static(Text(""), id="saved")

    def compose(self) -> ComposeResult:
        yield self._progress
        yield self._saved_cell

    def watch_saved(self) -> None:
        self.redraw()

    def watch_message(self) -> None:
        self.redraw()

    def redraw(self) -> None:
        """Draw both cells for the screen's width (the progress changes with every key)."""
        if self.session is None or not self.is_attached:
            return
        # The saved cell takes what it needs, short of the progress's least (a long NOT SAVED
        # reason is cut, its start kept; whole in the notice and under ?); the progress gets
        # the rest.
        width = self.screen.size.width or 80
        shown = parts.fitted_saved(self.saved, width)
        room = width - shown.cell_len - 4  # both cells pad 1+1
        if self.message is not None:
            # A routine message takes the progress's place for a moment, never the saved cell's.
            line = self.message.copy()
            line.truncate(max(room, 1), overflow="ellipsis")
        else:
            line = parts.status_line(self.session, max(room, 1))
        put(self._progress, line)
        saved = self._saved_cell
        # The saved cell is as wide as its text: a layout pass only when that width changes.
        saved.update(shown, layout=shown.cell_len + 2 != saved.outer_size.width)
