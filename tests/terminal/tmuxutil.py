"""Drive a real program in tmux: start it, send keys, read the screen, signal it.

Reusable by every ``tests/terminal/test_*_tmux.py``. Each ``Tmux`` runs its own tmux server on a
private socket, so tests never touch the user's sessions and can run in parallel.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
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


# The pane runs this small parent, which runs the program in the foreground of the same terminal,
# writes the program's pid and, when it ends, its exit status (-N if signal N killed it, as
# subprocess says) to files.
# tmux 3.3a does not always record a dead pane's status, so it is not asked.
_WRAPPER = """
import signal, subprocess, sys
status_file, pid_file, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
child = subprocess.Popen(argv)
for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGQUIT):
    signal.signal(sig, signal.SIG_IGN)  # signals are for the program; this only reports
open(pid_file, "w").write(str(child.pid))
code = child.wait()
open(status_file, "w").write(str(code))
sys.exit(0)
"""


class Tmux:
    def __init__(self, width: int = 80, height: int = 24) -> None:
        require_tmux()
        self.socket = f"goldset-test-{uuid.uuid4().hex[:10]}"
        self.width, self.height = width, height
        self.session = "t"
        self.started = False
        self.dir = Path(tempfile.mkdtemp(prefix="goldset-tmux-"))
        self.status_file = self.dir / "status"
        self.pid_file = self.dir / "pid"

    def _tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            check=check,
            timeout=30,
        )

    def start(
        self,
        argv: list[str],
        env: dict[str, str] | None = None,
        cwd: str | Path | None = None,
        term: str = "xterm-256color",
    ) -> None:
        """Run ``argv`` in the pane, in the terminal's foreground (``pid()`` is the program's).

        ``term`` is the TERM the program sees: ``xterm`` makes Textual use 16 colours."""
        assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
        wrapper = [sys.executable, "-c", _WRAPPER, str(self.status_file), str(self.pid_file), *argv]
        command = (
            # COLUMNS/LINES (set in the test process by a plugin) would override the pane's size.
            f"cd {shlex.quote(str(cwd or os.getcwd()))} && exec env -u COLORTERM -u COLUMNS -u LINES"
            f" TERM={shlex.quote(term)} "
            f"{assignments} {shlex.join(wrapper)}"
        )
        # Keep the pane after the program exits, to read its last screen: set that on an idle
        # pane first, then respawn it with the program (no race with a fast exit).
        self._tmux(
            "new-session",
            "-d",
            "-s",
            self.session,
            "-x",
            str(self.width),
            "-y",
            str(self.height),
            "sleep 3600",
        )
        self._tmux("set-option", "-t", self.session, "remain-on-exit", "on")
        self._tmux("respawn-pane", "-k", "-t", self.session, command)
        self.started = True

    def send(self, *keys: str) -> None:
        for key in keys:
            self._tmux("send-keys", "-t", self.session, key)

    def send_literal(self, text: str) -> None:
        self._tmux("send-keys", "-t", self.session, "-l", text)

    def capture(self, *, escapes: bool = False, history: int = 0) -> str:
        """The screen as text; with ``escapes`` also the SGR colour/style sequences (``-e``);
        with ``history`` also that many lines scrolled off the top (words printed on exit)."""
        args = ["capture-pane", "-p", "-t", self.session] + (["-e"] if escapes else [])
        args += ["-S", str(-history)] if history else []
        return self._tmux(*args).stdout

    # Every timeout here is a guard against a hang, never a speed bound: under the whole suite at
    # load 10 a cold start of the program drew nothing for over 30 s.
    def wait_for(self, predicate: str | Callable[[str], bool], timeout: float = 120.0) -> str:
        test = (lambda screen: predicate in screen) if isinstance(predicate, str) else predicate
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.capture()
            if test(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {predicate!r}; screen was:\n{screen}")

    def pid(self, timeout: float = 60.0) -> int:
        """The program's process id (not the pane's reporting parent)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.pid_file.read_text() if self.pid_file.exists() else ""
            if text.strip():
                return int(text)
            time.sleep(0.05)
        raise AssertionError("the program never started")

    def is_dead(self) -> bool:
        return (
            self._tmux("display-message", "-p", "-t", self.session, "#{pane_dead}").stdout.strip()
            == "1"
        )

    def exit_status(self) -> int | None:
        """The program's exit status, -N if signal N killed it, None while it runs."""
        text = self.status_file.read_text() if self.status_file.exists() else ""
        return int(text) if text.strip() else None

    def wait_exit_status(self, timeout: float = 60.0) -> int | None:
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

    def wait_dead(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.exit_status() is not None and self.is_dead():
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
        shutil.rmtree(self.dir, ignore_errors=True)
