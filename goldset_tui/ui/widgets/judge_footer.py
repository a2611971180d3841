"""The judging screen's footer fits the terminal: below the width the whole footer needs, the
entries that are also under ``?`` give way one by one (near-duplicates, note, goto, find, query,
undo), so "? help" and "q quit" are never pushed off the end. At 60 columns (a split tmux pane)
the footer lost both, and with them the way to find every other key.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

from textual.binding import Binding
from textual.screen import Screen

# One cell between two entries, one between a key and its description (the compact footer).
_GAP = 1


class FittedFooter(Screen):  # a mixin: the screen's own Screen[...] base gives the result type
    # The ids of the footer entries that give way first when the footer is too wide; the others
    # (grade, move, help, quit or home) always stay.
    FOOTER_GIVES_WAY: ClassVar[tuple[str, ...]] = (
        "grade_group",
        "note",
        "goto",
        "search",
        "next_query",
        "undo",
    )

    def _entry_width(self, items: list[Any]) -> int:
        """Cells a footer entry takes: one binding, or a group shown once ("0123 grade")."""
        keys = sum(len(self.app.get_key_display(item.binding)) for item in items)
        first = items[0].binding
        words = first.group.description if first.group is not None else first.description
        return keys + _GAP + len(words) + _GAP

    @property
    def active_bindings(self) -> dict[str, Any]:
        active: dict[str, Any] = super().active_bindings
        width = self.app.size.width
        entries: dict[object, list[Any]] = {}  # footer entry -> its bindings
        for key, item in active.items():
            if item.binding.show:
                # "j,down" is one entry shown once: bindings of one id are one entry.
                entry = item.binding.group or item.binding.id or key
                entries.setdefault(entry, []).append(item)
        for entry, items in entries.items():
            if not isinstance(entry, Binding.Group):
                entries[entry] = items[:1]
        need = sum(self._entry_width(items) for items in entries.values())
        for gives_way in self.FOOTER_GIVES_WAY:
            if need <= width:
                break
            if gives_way in entries:
                need -= self._entry_width(entries[gives_way])
            for key, item in list(active.items()):
                if item.binding.id == gives_way and item.binding.show:
                    active[key] = item._replace(binding=replace(item.binding, show=False))
        return active
