"""Drive a real program in tmux: start it, send keys, read the screen, signal it.

Reusable by every ``tests/terminal/test_*_tmux.py``. Each ``Tmux`` runs its own tmux server on a
private socket, so tests never touch the user's sessions and can run in parallel.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest


def goldset_command() -> str:
    """The venv's ``goldset`` console script (the real entry point, not ``python -m``)."""
    script = Path(sys.executable).parent / "goldset"
    if not script.exists():
        pytest.skip(f"console script not installed next to {sys.executable}")
    return str(script)


def require_tmux() -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux not installed")


class Tmux:
    def __init__(self, width: int = 80, height: int = 24) -> None:
        require_tmux()
        self.socket = f"goldset-test-{uuid.uuid4().hex[:10]}"
        self.width, self.height = width, height
        self.session = "t"
        self.started = False

    def _tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=check, timeout=30)

    def start(
        self,
        argv: list[str],
        env: dict[str, str] | None = None,
        cwd: str | Path | None = None,
        term: str = "xterm-256color",
    ) -> None:
        """Run ``argv`` as the pane's process (``exec``, so the pane pid is the program's).

        ``term`` is the TERM the program sees: ``xterm`` makes Textual use 16 colours."""
        assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
        command = (
            f"cd {shlex.quote(str(cwd or os.getcwd()))} && exec env -u COLORTERM TERM={shlex.quote(term)} "
            f"{assignments} {shlex.join(argv)}"
        )
        # Keep the pane after the program exits, to read its last screen and exit status: set
        # that on an idle pane first, then respawn it with the program (no race with a fast exit).
        self._tmux("new-session", "-d", "-s", self.session, "-x", str(self.width), "-y", str(self.height), "sleep 3600")
        self._tmux("set-option", "-t", self.session, "remain-on-exit", "on")
        self._tmux("respawn-pane", "-k", "-t", self.session, command)
        self.started = True

    def send(self, *keys: str) -> None:
        for key in keys:
            self._tmux("send-keys", "-t", self.session, key)

    def send_literal(self, text: str) -> None:
        self._tmux("send-keys", "-t", self.session, "-l", text)

    def capture(self, *, escapes: bool = False) -> str:
        """The screen as text; with ``escapes`` also the SGR colour/style sequences (``-e``)."""
        args = ["capture-pane", "-p", "-t", self.session] + (["-e"] if escapes else [])
        return self._tmux(*args).stdout

    def wait_for(self, predicate: str | Callable[[str], bool], timeout: float = 30.0) -> str:
        test = (lambda screen: predicate in screen) if isinstance(predicate, str) else predicate
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.capture()
            if test(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {predicate!r}; screen was:\n{screen}")

    def pid(self) -> int:
        return int(self._tmux("display-message", "-p", "-t", self.session, "#{pane_pid}").stdout.strip())

    def is_dead(self) -> bool:
        return self._tmux("display-message", "-p", "-t", self.session, "#{pane_dead}").stdout.strip() == "1"

    def exit_status(self) -> int | None:
        """The program's exit status; 128 + N if signal N killed it (like a shell's $?).

        None when tmux did not record it: tmux 3.3a sometimes loses it under load, so assert on
        what the program left behind (files, the last screen) rather than on this alone.
        """
        out = self._tmux(
            "display-message", "-p", "-t", self.session, "#{pane_dead_status}|#{pane_dead_signal}"
        ).stdout.strip()
        status, _, killed_by = out.partition("|")
        if status:
            return int(status)
        if killed_by:
            return 128 + int(killed_by)
        # The format can lag; the pane's own last line says it too.
        found = re.search(r"Pane is dead \((?:status (\d+)|signal (\d+))", self.capture())
        if found:
            return int(found.group(1)) if found.group(1) else 128 + int(found.group(2))
        return None

    def wait_exit_status(self, timeout: float = 10.0) -> int | None:
        """``exit_status`` once tmux has it (it can lag the pane's death under load)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status = self.exit_status()
            if status is not None:
                return status
            time.sleep(0.1)
        return None

    def signal(self, sig: signal.Signals) -> None:
        os.kill(self.pid(), sig)

    def wait_dead(self, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.is_dead():
                return
            time.sleep(0.1)
        raise AssertionError("the program did not exit")

    def kill_session(self) -> None:
        if self.started:
            self._tmux("kill-session", "-t", self.session, check=False)
            self.started = False

    def close(self) -> None:
        self.kill_session()
        self._tmux("kill-server", check=False)
