"""Help: the guidelines (from the project's manifest) and every key of the screen it covers.

The key list is generated from the screen's active bindings, one row per binding with every key
it answers to (after the user's keymap), so it cannot drift from what the keys do. It sits beside
the guidelines, not below them, so that at 80x24 both are on screen without scrolling.

A screen may pass ``passthrough``: a key the dialog does not use is offered to it, and when the
screen takes it (a grade key on the judging screen) the dialog closes instead of swallowing the key
silently. The judging screen grades nothing then: the candidate was hidden under the dialog.

``notice`` puts one line at the top of the dialog, replaced by the next call: a count that grows
key by key (the judging screen's keys typed while it loaded) is said once, as it stands now. A
toast per call stacked one per key, and the last, the true count, could be out of view.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from goldset_tui.ui.safe import literal


def keys_table(screen: Screen, *, ids: bool | None = None) -> Table:
    """The screen's active bindings, each key shown for itself (``j ↓`` next, ``k ↑`` previous),
    as mapped now (after the keymap); bindings of one group (the grade keys) share a row.

    Only goldset's own bindings (they all have an id, the name a keymap uses); Textual's focus and
    copy keys are not what a labeller looks for here. The ids are shown when the terminal is wide
    (``ids=None``: 100 columns or more); at 80 they would wrap every row below the fold."""
    show_ids = screen.app.size.width >= 100 if ids is None else ids
    rows: dict[str, list[str]] = {}
    descriptions: dict[str, str] = {}
    binding_ids: dict[str, list[str]] = {}
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if not binding.id or not binding.description or binding.system or not active.enabled:
            continue
        name = binding.id
        row = f"group:{binding.group.description}" if binding.group else name
        # The display of this key alone: a binding's key_display ("j/k") speaks for a pair.
        display = screen.app.get_key_display(replace(binding, key=key, key_display=None))
        if display not in rows.setdefault(row, []):
            rows[row].append(display)
        if name not in binding_ids.setdefault(row, []):
            binding_ids[row].append(name)
        descriptions.setdefault(row, binding.tooltip or binding.description)
    # A grid, so a long description wraps under itself, not under the keys.
    table = Table.grid(padding=(0, 1))
    table.add_column(justify="right", no_wrap=True, style="bold")
    table.add_column(ratio=1)
    for row, keys in rows.items():
        names = binding_ids[row]
        label = names[0] if len(names) == 1 else f"{names[0]}..{names[-1]}"
        text = Text(descriptions[row])
        if show_ids:
            text.append(f" ({label})", style="dim")
        table.add_row(" ".join(keys), text)
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,question_mark,enter", "close", "Close", id="help.close"),
        # q keeps its meaning everywhere (ui/leaving.py): back to home, or quit without one; the
        # screens under the dialog flush on the way, so nothing judged is lost.
        Binding("q", "app.go_home", "home", id="help.home", tooltip="Save, back to home"),
    ]

    def __init__(
        self,
        guidelines: str,
        keys: RenderableType,
        *,
        title: str = "Guidelines",
        passthrough: Callable[[events.Key], bool] | None = None,
        passthrough_hint: str = "",
    ) -> None:
        super().__init__()
        self._guidelines = guidelines
        self._keys = keys
        self._title = title
        self._passthrough = passthrough
        self._hint = passthrough_hint

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help"):
            yield Static(literal(self._title), classes="dialog-title")
            notice = Static("", id="help-notice")
            notice.display = False  # a line only when there is something to say
            yield notice
            with Horizontal(id="help-body"):
                with VerticalScroll(id="help-guidelines-box"):
                    yield Static(literal(self._guidelines), id="help-guidelines")
                with VerticalScroll(id="help-keys-box"):
                    yield Static(self._keys, id="help-keys")
            # q is in the key list beside this (it does there what it does here): no room to repeat.
            hint = "Escape, Enter or ? closes"
            yield Static(f"{hint}; {self._hint}" if self._hint else hint, classes="dialog-hint")

    def notice(self, message: str) -> None:
        """Say ``message`` at the top of the dialog, in place of what was said there before."""
        line = self.query_one("#help-notice", Static)
        line.update(literal(message, keep_newlines=False, style="bold"))
        line.display = True

    def on_key(self, event: events.Key) -> None:
        # Keys the dialog does not use go to the screen underneath when it wants them (a grade):
        # the dialog closes (and the screen says what the key did), rather than the key vanishing.
        if self._passthrough is not None and self._passthrough(event):
            event.stop()
            self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
