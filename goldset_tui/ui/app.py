"""The Textual application shell. Screens live in ``ui/screens``; this only hosts them.

``run_app(make_screen)`` is how every command opens the UI: it builds the app, pushes the first
screen and returns the app's exit code. The app adds what every screen shares: the user's keymap
and theme from the config file, a command palette that lists the current screen's actions, and
quitting that flushes first (``q``/``ctrl+q``, SIGHUP and SIGTERM alike).

A screen with something to flush defines ``flush() -> None``; the app calls it on every screen in
the stack before it exits.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Callable, Iterable
from functools import partial

from textual.app import App, SystemCommand
from textual.screen import Screen

from goldset_tui.config import Config, load_config


class GoldsetApp(App[int]):
    TITLE = "goldset"
    CSS_PATH = "app.tcss"

    def __init__(self, make_screen: Callable[[], Screen], *, config: Config | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self._make_screen = make_screen
        self._config = config if config is not None else Config()
        self._flushed = False
        self.flush_errors: list[str] = []  # printed by run_app once the terminal is back
        if self._config.keymap:
            self.set_keymap(self._config.keymap)
        if self._config.theme and self._config.theme in self.available_themes:
            self.theme = self._config.theme

    def on_mount(self) -> None:
        self._install_signal_handlers()
        self.push_screen(self._make_screen())

    # ----- quitting -------------------------------------------------------------------------
    def flush_screens(self) -> None:
        """Ask every screen holding unsaved state to write it out (idempotent)."""
        if self._flushed:
            return
        self._flushed = True
        for screen in reversed(self.screen_stack):
            flush = getattr(screen, "flush", None)
            if callable(flush):
                try:
                    flush()
                except Exception as exc:  # every judgment is already durable; say what failed
                    self.flush_errors.append(f"{type(screen).__name__}: could not close cleanly: {exc}")

    async def action_quit(self) -> None:
        self.flush_screens()
        self.exit(0)

    def _install_signal_handlers(self) -> None:
        # A dropped SSH connection sends SIGHUP; a supervisor sends SIGTERM. Both must flush.
        try:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGHUP, signal.SIGTERM):
                loop.add_signal_handler(sig, partial(self._on_signal, sig))
        except (NotImplementedError, RuntimeError, ValueError, AttributeError):
            pass  # not the main thread (tests) or no signals on this platform

    def _on_signal(self, sig: int) -> None:
        self.flush_screens()
        self.exit(128 + int(sig))

    # ----- command palette ------------------------------------------------------------------
    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        seen: set[str] = set()
        for key, active in screen.active_bindings.items():
            binding = active.binding
            if not binding.description or binding.action in seen or binding.system:
                continue
            if not active.enabled:
                continue
            seen.add(binding.action)
            keys = binding.key_display or key
            yield SystemCommand(
                binding.description,
                f"{binding.tooltip or binding.description} (key: {keys})",
                partial(self._run_screen_action, screen, binding.action),
            )
        for title, help_text, callback in getattr(screen, "palette_commands", lambda: [])():
            yield SystemCommand(title, help_text, callback)

    def _run_screen_action(self, screen: Screen, action: str) -> None:
        self.call_later(screen.run_action, action)


def run_app(make_screen: Callable[[], Screen]) -> int:
    app = GoldsetApp(make_screen, config=load_config())
    result = app.run()
    for message in app.flush_errors:
        print(f"goldset: warning: {message}", file=sys.stderr)
    return int(result or 0)
