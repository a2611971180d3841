"""Help: the guidelines (from the project's manifest) and every key of the screen it covers."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from goldset_tui.ui.safe import literal


def keys_table(screen: Screen) -> Text:
    """The screen's active bindings, with the keys they are mapped to now (after the keymap)."""
    out = Text()
    rows: dict[str, list[str]] = {}
    descriptions: dict[str, str] = {}
    for active in screen.active_bindings.values():
        binding = active.binding
        if not binding.description or binding.system or not active.enabled:
            continue
        name = binding.id or binding.action
        display = screen.app.get_key_display(binding)
        rows.setdefault(name, [])
        if display not in rows[name]:
            rows[name].append(display)
        descriptions.setdefault(name, binding.tooltip or binding.description)
    for name, keys in rows.items():
        out.append(f"{' '.join(keys):>12}  ", style="bold")
        out.append(descriptions[name])
        out.append(f"  ({name})\n", style="dim")
    return out


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,question_mark,q,enter", "close", "Close", id="help.close"),
    ]

    def __init__(self, guidelines: str, keys: Text, *, title: str = "Guidelines") -> None:
        super().__init__()
        self._guidelines = guidelines
        self._keys = keys
        self._title = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help"):
            yield Static(literal(self._title), classes="dialog-title")
            with VerticalScroll(id="help-body"):
                yield Static(literal(self._guidelines), id="help-guidelines")
                yield Static(
                    Text(
                        "\nKeys (remap them in the config file by the id in brackets)\n",
                        style="bold",
                    )
                )
                yield Static(self._keys, id="help-keys")
            yield Static("Escape, Enter or ? to close", classes="dialog-hint")

    def action_close(self) -> None:
        self.dismiss(None)
