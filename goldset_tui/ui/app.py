"""The Textual application shell. Screens live in ``ui/screens``; this only hosts them.

``run_app(make_screen)`` is how every command opens the UI: it builds the app, pushes the first
screen and returns the app's exit code. The app adds what every screen shares: the user's keymap
and theme from the config file, a command palette that lists the current screen's actions, and
quitting that flushes first (``q``/``ctrl+q``, SIGHUP and SIGTERM alike).

A screen with something to flush defines ``flush() -> None``; the app calls it on every screen in
the stack before it exits. A screen with extra palette entries defines
``palette_commands() -> list[(title, help, callback)]``; titles and help may quote data (project,
labeller, path), so the app shows them literally.

The keymap is checked before anything opens (``run_app``): an id no screen has, or a key that
another binding of the same screen already uses, is a one-line error naming the config file.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import os
import pkgutil
import signal
import sys
import threading
from collections.abc import Callable, Iterable
from functools import partial

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.dom import DOMNode
from textual.keys import _character_to_key
from textual.message import Message
from textual.screen import Screen

from goldset_tui.config import Config, check_keymap, load_config
from goldset_tui.text import visible
from goldset_tui.ui.leaving import home_below, quits

# How long an exit on SIGHUP/SIGTERM may take before the process leaves without Textual's help.
EXIT_GRACE_SECONDS = 3.0
# How often the app checks that its terminal is still there (one ioctl; see _watch_terminal).
HANGUP_CHECK_SECONDS = 1.0


def palette_text(text: object) -> str:
    """``text`` for the command palette, shown as written: the palette parses titles and help as
    Textual markup, so "Bob [red]X" would lose its brackets and "[@click=...]" would be live.

    Textual markup has no escape for a backslash, only for "[", so escaping every "[" is exact
    (rich's ``escape`` doubles backslashes before "[" and Textual then shows both)."""
    return visible(text, keep_newlines=False).replace("[", "\\[")


def _normal_keys(keys: str) -> str:
    # What Textual does to a binding's own keys: "?" is "question_mark", "/" is "slash".
    return ",".join(_character_to_key(k) if len(k) == 1 else k for k in keys.split(",") if k)


def _subclasses(cls: type) -> Iterable[type]:
    sub: type
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def binding_table() -> tuple[dict[str, dict[str, tuple[str, ...]]], set[str]]:
    """Every goldset screen's bindings (id, or a description for fixed ones, to keys), with the
    app's own (ctrl+q, the palette) on each; and every binding id a keymap may name."""
    import goldset_tui.ui.screens as screens_package
    import goldset_tui.ui.widgets as widgets_package

    for package in (screens_package, widgets_package):
        for module in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package.__name__}.{module.name}")
    app_keys: dict[str, tuple[str, ...]] = {
        "the command palette": (GoldsetApp.COMMAND_PALETTE_BINDING,)
    }
    for key, bindings in GoldsetApp._merge_bindings().key_to_bindings.items():
        for binding in bindings:
            app_keys.setdefault(binding.id or f"app.{binding.action}", ())
            app_keys[binding.id or f"app.{binding.action}"] += (key,)
    known: set[str] = set()
    table: dict[str, dict[str, tuple[str, ...]]] = {}
    for cls in dict.fromkeys(_subclasses(DOMNode)):
        for binding in cls.__dict__.get("BINDINGS", []):
            if isinstance(binding, Binding) and binding.id:
                known.add(binding.id)
        if not (issubclass(cls, Screen) and cls.__module__.startswith("goldset_tui.")):
            continue
        keys = dict(app_keys)
        for key, key_bindings in cls._merge_bindings().key_to_bindings.items():
            for binding in key_bindings:
                name = binding.id or f"{binding.action} ({key})"
                keys[name] = keys.get(name, ()) + (key,)
        name = cls.__name__.removesuffix("Screen").lower() or cls.__name__
        table[f"{name} screen"] = keys
    return table, known


class LeaveFinished(Message):
    """Posted by the app to itself when a leave (back, home, quit) has finished: the input queued
    ahead of it was typed while the leave waited, and is dropped (``GoldsetApp.on_event``)."""


# Input that acts: a key, a mouse button. Moves and scrolls do nothing worth dropping.
_ACTING_INPUT = (events.Key, events.MouseDown, events.MouseUp)


class GoldsetApp(App[int]):
    TITLE = "goldset"
    CSS_PATH = "app.tcss"

    def __init__(
        self, make_screen: Callable[[], Screen], *, config: Config | None = None, **kwargs
    ) -> None:
        super().__init__(**kwargs)
        self._make_screen = make_screen
        self._config = config if config is not None else Config()
        self._flushed = False
        self._dropping_input = False  # between the end of a leave and its LeaveFinished
        self.flush_errors: list[str] = []  # printed by run_app once the terminal is back
        if self._config.keymap:
            self.set_keymap(
                {binding_id: _normal_keys(keys) for binding_id, keys in self._config.keymap.items()}
            )
        if self._config.theme and self._config.theme in self.available_themes:
            self.theme = self._config.theme

    @property
    def config(self) -> Config:
        """The user's config as checked at start (a screen may update it: the reading width)."""
        return self._config

    @config.setter
    def config(self, config: Config) -> None:
        self._config = config

    def on_mount(self) -> None:
        self._install_signal_handlers()
        self._watch_terminal()
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
                    self.flush_errors.append(
                        f"{type(screen).__name__}: could not close cleanly: {exc}"
                    )

    async def action_quit(self) -> None:
        # A save that fails while quitting waits for it keeps the screen, as leaving does: the
        # labeller sees it and can grade again (q again quits). A signal quits without waiting.
        try:
            if not await self._settle(list(reversed(self.screen_stack))):
                return
            self.flush_screens()
            self.exit(0)
        finally:
            self._drop_input_typed_meanwhile()

    # ----- input typed while leaving ----------------------------------------------------------
    def _drop_input_typed_meanwhile(self) -> None:
        """Keys (and clicks) typed while a leave waited (for the disk: "Waiting for N grades";
        for a compaction) sit in the app's queue behind the action, and would act afterwards on
        whatever screen is then shown: a grade key on the home screen, a second q quitting the
        app, or, when a failed save keeps the judging screen, a grade typed for the candidate
        that was on screen landing on the one the labeller is brought back to. None of them was
        typed for what it would hit, so they are dropped: everything queued ahead of the
        LeaveFinished posted here. Keys typed after it act as usual."""
        self._dropping_input = True
        self.post_message(LeaveFinished())

    def on_leave_finished(self, _message: LeaveFinished) -> None:
        self._dropping_input = False

    async def on_event(self, event: events.Event) -> None:
        if (
            self._dropping_input
            and isinstance(event, _ACTING_INPUT)
            and not event.is_forwarded  # straight from the terminal, not bubbled from a screen
        ):
            return
        await super().on_event(event)

    # ----- leaving a screen: Escape back one, q home (ui/leaving.py) ------------------------
    async def _settle(self, screens: list[Screen]) -> bool:
        """Let each screen finish what is on its way to the disk while it still draws (judging
        says "waiting for N grades"); False if one must stay (a save failed, shown on it)."""
        for screen in screens:
            settle = getattr(screen, "settle_before_leaving", None)
            if callable(settle) and not await settle():
                return False
        return True

    def _flush_one(self, screen: Screen) -> None:
        flush = getattr(screen, "flush", None)
        if callable(flush):
            flush()  # a failure propagates: the screen stays, and Textual shows the error

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "back":
            # Nothing to go back to from the first screen: hidden from the footer, key unused.
            return len(self.screen_stack) > 2
        return super().check_action(action, parameters)

    async def action_back(self) -> None:
        """Back one screen, the one that opened this (its callback runs: a report recomputes)."""
        screen = self.screen
        if len(self.screen_stack) <= 2:
            return
        try:
            if not await self._settle([screen]):
                return
            self._flush_one(screen)
            screen.dismiss(None)
        finally:
            self._drop_input_typed_meanwhile()

    async def action_go_home(self) -> None:
        """Back to the home screen, flushing every screen on the way; quit if there is none."""
        home = home_below(self.screen)
        if home is None:
            await self.action_quit()
            return
        leaving = list(reversed(self.screen_stack[self.screen_stack.index(home) + 1 :]))
        try:
            if not await self._settle(leaving):
                return
            for screen in leaving:
                self._flush_one(screen)
            home.pop_until_active()
        finally:
            self._drop_input_typed_meanwhile()

    def _install_signal_handlers(self) -> None:
        # A dropped SSH connection sends SIGHUP; a supervisor sends SIGTERM. Both must flush.
        try:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGHUP, signal.SIGTERM):
                loop.add_signal_handler(sig, partial(self._on_signal, sig))
        except (NotImplementedError, RuntimeError, ValueError, AttributeError):
            pass  # not the main thread (tests) or no signals on this platform

    def _watch_terminal(self) -> None:
        # SIGHUP reaches only the terminal's session leader. Under a parent that ignores it (a
        # wrapper script, a supervisor, `nohup`), a killed tmux server or a dropped SSH link
        # leaves goldset on a dead terminal: Textual's input thread then reads nothing in a busy
        # loop (10% CPU, for hours, holding the journal lock). The terminal answers EIO once it
        # has hung up: checked once a second, that is taken as the SIGHUP that never came.
        if self.is_headless:
            return
        try:
            fd = sys.__stdin__.fileno() if sys.__stdin__ is not None else -1
            if fd < 0 or not os.isatty(fd):
                return
            # A terminal that is not this process's controlling one (started under setsid) fails
            # the check from the start: then there is nothing to watch, and no reason to leave.
            os.tcgetpgrp(fd)
        except (OSError, ValueError):
            return

        def check() -> None:
            try:
                os.tcgetpgrp(fd)
            except OSError:
                self._on_signal(signal.SIGHUP)

        self.set_interval(HANGUP_CHECK_SECONDS, check, name="terminal-hangup")

    def _on_signal(self, sig: int) -> None:
        self.flush_screens()
        self.exit(128 + int(sig))
        # With the terminal gone (SIGHUP after a dropped connection) Textual's orderly exit can
        # block on writing to it, leaving a process that holds the labeller's journal lock. Every
        # judgment is already durable and the screens are flushed, so if the exit has not
        # happened in a few seconds, leave without it.
        watchdog = threading.Timer(EXIT_GRACE_SECONDS, os._exit, args=(128 + int(sig),))
        watchdog.daemon = True
        watchdog.start()

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
            quitting = binding.action in {"quit", "app.quit"}  # ctrl+q, and any screen's own
            if quitting or (binding.action == "app.go_home" and quits(screen)):
                continue  # Textual's own "Quit" entry is there already: one Quit, not two
            seen.add(binding.action)
            keys = binding.key_display or key
            yield SystemCommand(
                palette_text(binding.description),
                palette_text(f"{binding.tooltip or binding.description} (key: {keys})"),
                partial(self._run_screen_action, screen, binding.action),
            )
        for title, help_text, callback in getattr(screen, "palette_commands", lambda: [])():
            yield SystemCommand(palette_text(title), palette_text(help_text), callback)

    def _run_screen_action(self, screen: Screen, action: str) -> None:
        self.call_later(screen.run_action, action)


def checked_config() -> Config:
    """The user's config, its keymap checked against every screen's bindings (InputError if wrong)."""
    config = load_config()
    if config.keymap:
        config = dataclasses.replace(
            config, keymap={i: _normal_keys(k) for i, k in config.keymap.items()}
        )
        check_keymap(config, *binding_table())
    return config


def run_app(make_screen: Callable[[], Screen]) -> int:
    from goldset_tui.app import terminal as _terminal

    # Each screen command checks first; this catches one that forgot (Textual spins without keys).
    command = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] in _terminal.INSTEAD else ""
    _terminal.require_terminal(command)
    app = GoldsetApp(make_screen, config=checked_config())
    result = app.run()
    if result == 128 + signal.SIGHUP:
        # The terminal is gone: what a command prints after its screen ("answers saved in ...")
        # would fail with EIO and turn a clean exit into an error. Nobody is there to read it.
        devnull = open(os.devnull, "w")  # noqa: SIM115 - replaces stdout until the process ends
        sys.stdout = sys.stderr = devnull
    for message in app.flush_errors:
        print(f"goldset: warning: {message}", file=sys.stderr)
    return int(result or 0)
