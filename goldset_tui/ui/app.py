"""The Textual application shell. Screens live in ``ui/screens``; this only hosts them.

``run_app(make_screen)`` is how every command opens the UI: it builds the app, pushes the first
screen and returns the app's exit code.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App
from textual.screen import Screen


class GoldsetApp(App[int]):
    TITLE = "goldset"

    def __init__(self, make_screen: Callable[[], Screen], **kwargs) -> None:
        super().__init__(**kwargs)
        self._make_screen = make_screen

    def on_mount(self) -> None:
        self.push_screen(self._make_screen())


def run_app(make_screen: Callable[[], Screen]) -> int:
    app = GoldsetApp(make_screen)
    result = app.run()
    return int(result or 0)
