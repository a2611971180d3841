"""One way out of every screen: Escape goes back one screen, ``q`` goes back to the home screen.

``q`` quits when there is no home screen to go back to (on the home screen itself, or on a screen
a command opened directly, such as ``goldset judge``), and the footer says which: "q home" or
"q quit". Escape does nothing on the first screen (there is nothing to go back to), and is then
left out of the footer (also while a dialog covers that screen). Modal dialogs (help, prompts)
close on Escape, which is the same rule.

A screen takes part by inheriting :class:`LeaveKeys` first and listing
:func:`leave_bindings` in its ``BINDINGS``; the actions themselves are the app's (``app.back``,
``app.go_home``), so every screen leaves the same way, flushing what it holds on the way out.
"""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from textual import events, on
from textual.binding import ActiveBinding, Binding
from textual.screen import Screen


def leave_bindings(
    back_id: str, home_id: str, *, back_keys: str = "escape", show_back: bool = True
) -> list[Binding]:
    """Escape (back one screen) and q (home, or quit), under the screen's own binding ids.
    ``show_back=False`` keeps Escape out of a footer that has no room (it is still under ?)."""
    return [
        Binding(
            back_keys,
            "app.back",
            "back",
            id=back_id,
            tooltip="Save, back one screen",
            show=show_back,
        ),
        Binding("q", "app.go_home", "home", id=home_id, tooltip="Save, back to home"),
    ]


def home_below(screen: Screen) -> Screen | None:
    """The home screen under ``screen`` in the app's stack (None on home itself, or without one)."""
    stack = screen.app.screen_stack
    if screen not in stack:
        return None
    below = stack[: stack.index(screen)]
    return next((s for s in reversed(below) if getattr(s, "IS_HOME", False)), None)


def quits(screen: Screen) -> bool:
    """True when ``q`` on this screen quits the app (no home screen to go back to)."""
    return home_below(screen) is None


class LeaveKeys(Screen):  # a mixin: the screen's own Screen[...] base gives the result type
    """Labels ``q`` by what it does here: "home" with a home screen below, else "quit"."""

    # A footer too full for "esc back" below some width: (the ids of the footer entries that give
    # way to it there, that width). They stay keys, listed under ?; None: always room.
    BACK_TAKES_PLACE_OF: ClassVar[tuple[frozenset[str], int] | None] = None

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        active = super().active_bindings
        stack = self.app.screen_stack
        first = stack.index(self) <= 1 if self in stack else True
        quitting = quits(self)
        narrow = self.BACK_TAKES_PLACE_OF
        if first or narrow is None or self.app.size.width >= narrow[1]:
            narrow = None
        for key, item in list(active.items()):
            if item.binding.action == "app.back" and first:
                # The app decides by the active screen, which may be a dialog over this one.
                del active[key]
            elif narrow is not None and item.binding.id in narrow[0] and item.binding.show:
                binding = replace(item.binding, show=False)
                active[key] = item._replace(binding=binding)
            elif item.binding.action == "app.go_home" and quitting:
                binding = replace(item.binding, description="quit", tooltip="Save and quit")
                active[key] = item._replace(binding=binding, tooltip=binding.tooltip)
        return self._in_declared_order(active)

    def _in_declared_order(self, active: dict[str, ActiveBinding]) -> dict[str, ActiveBinding]:
        # A user's keymap re-adds each rebound binding at the end (Textual's apply_keymap): at 80
        # columns "move" fell off the footer and "0" left the "0123 grade" entry. The footer
        # follows this order, so keep the screen's own. Bindings it does not declare go last.
        order: dict[str, int] = {}
        for cls in type(self).__mro__:
            for binding in cls.__dict__.get("BINDINGS", []):
                if isinstance(binding, Binding) and binding.id and binding.id not in order:
                    order[binding.id] = len(order)
        items = sorted(active.items(), key=lambda kv: order.get(kv[1].binding.id or "", len(order)))
        return dict(items)

    @on(events.Resize)
    def _footer_follows_width(self, event: events.Resize) -> None:
        # Which entry the footer shows can change with the width (BACK_TAKES_PLACE_OF).
        if self.BACK_TAKES_PLACE_OF is not None:
            self.refresh_bindings()
