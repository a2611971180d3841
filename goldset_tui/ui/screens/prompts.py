"""Small modal screens: a one-line text prompt and a query picker.

Both are keyboard-only: Enter accepts, Escape cancels. Data (query texts, ids) is shown through
``safe.literal``; what the user types is returned as typed.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from goldset_tui.ui.safe import literal

# One search entry at most: about three lines of the dialog at 80 columns, room for any query
# typed into a search box, with its id and mark.
_ENTRY_CELLS = 160


class TextPrompt(ModalScreen[str | None]):
    """Ask for one line of text; dismisses with the text, or None on Escape."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]

    def __init__(self, title: str, *, placeholder: str = "", value: str = "") -> None:
        super().__init__()
        self._title = title
        self._placeholder = placeholder
        self._value = value

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(literal(self._title), classes="dialog-title")
            yield Input(value=self._value, placeholder=self._placeholder, id="prompt-input")
            yield Static("Enter to accept, Escape to cancel", classes="dialog-hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class QueryPicker(ModalScreen[str | None]):
    """Search queries by id or text as you type; Enter opens the highlighted one."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="picker.cancel"),
        Binding("down", "cursor(1)", "Down", show=False, id="picker.down"),
        Binding("up", "cursor(-1)", "Up", show=False, id="picker.up"),
    ]

    def __init__(
        self,
        search: Callable[[str], list[tuple[str, str]]],
        *,
        title: str = "Find a query",
        mark: Callable[[str], str] | None = None,
    ) -> None:
        super().__init__()
        self._search = search
        self._title = title
        self._mark = mark  # e.g. a check mark for finished queries

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(literal(self._title), classes="dialog-title")
            yield Input(placeholder="part of a query id or text", id="picker-input")
            yield OptionList(id="picker-list")
            yield Static(
                "Type to filter, up/down to choose, Enter to open, Escape to cancel",
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        self._fill("")

    def _fill(self, needle: str) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        for query_id, query in self._search(needle):
            # No colour of its own: the highlighted row's background is the theme's, and green on
            # it read at about 1.6:1 in 256 colours. The tick itself says "finished".
            label = Text(self._mark(query_id) if self._mark else "", style="bold")
            label.append_text(literal(query_id, keep_newlines=False, style="bold"))
            label.append("  ")
            label.append_text(literal(query, keep_newlines=False))
            # A query thousands of characters long (a pasted page) would fill the list alone.
            label.truncate(_ENTRY_CELLS, overflow="ellipsis")
            options.add_option(Option(label, id=query_id))
        if options.option_count:
            options.highlighted = 0

    def on_input_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def action_cursor(self, delta: int) -> None:
        options = self.query_one(OptionList)
        if options.option_count:
            current = options.highlighted or 0
            options.highlighted = max(0, min(options.option_count - 1, current + delta))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        options = self.query_one(OptionList)
        if options.highlighted is not None and options.option_count:
            self.dismiss(options.get_option_at_index(options.highlighted).id)
        else:
            self.dismiss(None)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
