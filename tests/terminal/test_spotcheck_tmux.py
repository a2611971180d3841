"""The real `goldset spotcheck` in tmux: keys, what is on screen, and a SIGKILL that loses nothing
the screen called saved. Minimal tmux helpers live here (no shared helper module existed yet)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = [pytest.mark.terminal, pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")]

SIZES = "exact_identifier=54,negation=18,misspelled=22,short_keyword=61,multi_entity=49,paraphrase=96"
LABELS = """query,count,stratum
err_4021 on webhook delivery,3,exact_identifier
paginaton parameters,2,short_keyword
which regions are not covered,1,negation
api key,5,short_keyword
how do i stop the sync from running twice,1,paraphrase
sync stripe and salesforce accounts,1,multi_entity
"""


class Tmux:
    """One private tmux server (its own socket), so tests never touch the user's sessions."""

    def __init__(self, width: int = 80, height: int = 24) -> None:
        self.socket = f"goldset-test-{uuid.uuid4().hex[:8]}"
        self.width, self.height = width, height

    def run(self, *args: str) -> str:
        out = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20)
        return out.stdout

    def start(self, command: str, env: dict[str, str]) -> None:
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        self.run("new-session", "-d", "-x", str(self.width), "-y", str(self.height), f"env {exports} {command}")

    def screen(self) -> str:
        return self.run("capture-pane", "-p")

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.run("send-keys", key)
            time.sleep(0.05)

    def wait_for(self, text: str, timeout: float = 15.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.screen()
            if text in shown:
                return shown
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; screen:\n{self.screen()}")

    def pane_pid(self) -> int:
        return int(self.run("display-message", "-p", "#{pane_pid}").strip())

    def kill(self) -> None:
        self.run("kill-server")


@pytest.fixture
def tmux():
    t = Tmux()
    yield t
    t.kill()


def test_spotcheck_in_a_real_terminal_survives_sigkill(tmux: Tmux, tmp_path: Path, isolated_dirs: Path) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text(LABELS, encoding="utf-8")
    store = tmp_path / "store"
    env = {
        "GOLDSET_DATA_DIR": os.environ["GOLDSET_DATA_DIR"],
        "GOLDSET_CONFIG_DIR": os.environ["GOLDSET_CONFIG_DIR"],
        "TERM": "xterm-256color",
    }
    # exec, so the pane's process is goldset itself and SIGKILL reaches it directly.
    command = (
        f"sh -c {shlex.quote(f'exec {sys.executable} -m goldset_tui spotcheck {labels} --store {store} --labeller ana --targets {SIZES}')}"
    )
    tmux.start(command, env)
    screen = tmux.wait_for("Query 1 of 6")
    assert "1 exact_identifier" in screen and "y agree" in screen
    tmux.keys("y")
    tmux.wait_for("saved (1 of 6)")
    tmux.keys("3")  # misspelled: a correction unless the classifier said so too
    screen = tmux.wait_for("saved (2 of 6)")
    agreed = re.search(r"Agreement (\d) of 2", screen)
    assert agreed is not None, screen
    os.kill(tmux.pane_pid(), signal.SIGKILL)
    time.sleep(0.3)
    tmux.kill()

    tmux2 = Tmux()
    try:
        tmux2.start(command, env)
        screen = tmux2.wait_for("Query 3 of 6")
        assert "resumed: 2 answers" in screen and agreed.group(0) in screen
        tmux2.keys("q")
        time.sleep(0.5)
    finally:
        tmux2.kill()
    report = subprocess.run(
        [sys.executable, "-m", "goldset_tui", "spotcheck", str(labels), "--report", "--store", str(store),
         "--labeller", "ana", "--format", "json"],
        capture_output=True, text=True, timeout=60, env={**os.environ, **env},
    )
    assert report.returncode == 0, report.stderr
    data = json.loads(report.stdout)
    assert data["n"] == 2 and data["agree"] == int(agreed.group(1))
