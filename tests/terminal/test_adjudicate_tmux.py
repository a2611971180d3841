"""The real `goldset adjudicate` in tmux, to the end, then `goldset qrels --consensus`; and a
SIGKILL in the middle that loses no decision the screen called saved. Minimal tmux helpers live
here (each terminal test keeps its own, so none depends on another's file)."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from goldset_tui.adjudication.decisions import journal_path
from goldset_tui.agreement.example import build_example_store

pytestmark = [
    pytest.mark.terminal,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed"),
]


class Tmux:
    """One private tmux server (its own socket), so tests never touch the user's sessions."""

    def __init__(self, width: int = 100, height: int = 30) -> None:
        self.socket = f"goldset-adj-{uuid.uuid4().hex[:8]}"
        self.width, self.height = width, height
        self.pids: set[int] = set()  # every program started in a pane, killed at the end

    def run(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20
        ).stdout

    def start(self, command: str, env: dict[str, str]) -> None:
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        # remain-on-exit keeps the pane after the program ends, so its exit can be observed.
        self.run(
            "new-session",
            "-d",
            "-x",
            str(self.width),
            "-y",
            str(self.height),
            f"env {exports} {command}",
        )
        self.run("set-option", "-g", "remain-on-exit", "on")
        self.remember_pid()

    def respawn(self, command: str, env: dict[str, str]) -> None:
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        self.run("respawn-pane", "-k", f"env {exports} {command}")
        self.remember_pid()

    def remember_pid(self) -> None:
        pid = self.run("display-message", "-p", "#{pane_pid}").strip()
        if pid.isdigit():
            self.pids.add(int(pid))

    def screen(self) -> str:
        return self.run("capture-pane", "-p")

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.run("send-keys", key)
            time.sleep(0.05)

    def wait_for(self, text: str, timeout: float = 120.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.screen()
            if text in shown:
                return shown
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; screen:\n{self.screen()}")

    def pane_dead(self) -> bool:
        return self.run("display-message", "-p", "#{pane_dead}").strip() == "1"

    def pane_pid(self) -> int:
        return int(self.run("display-message", "-p", "#{pane_pid}").strip())

    def kill(self) -> None:
        """The server, then every program it ran: a Textual app can outlive the server's SIGHUP
        (five adjudicate processes were once found alive, orphaned, hours later)."""
        for pid in self.run("list-panes", "-a", "-F", "#{pane_pid}").split():
            self.pids.add(int(pid))
        self.run("kill-server")
        for pid in self.pids:
            kill_tree(pid)
        socket = Path(f"/tmp/tmux-{os.getuid()}") / self.socket
        socket.unlink(missing_ok=True)


def kill_tree(pid: int) -> None:
    """SIGKILL a pane's program and its process group (tmux makes each pane a session leader);
    the group only when it is the pane's own, never the test runner's."""
    try:
        if os.getpgid(pid) == pid:
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return  # already gone
    with contextlib.suppress(ChildProcessError):  # not our child (tmux's): init reaps it
        os.waitpid(pid, 0)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead but still listed until reaped.
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().rsplit(")", 1)[-1].split()[0] == "Z")


@pytest.fixture
def tmux():
    t = Tmux()
    try:
        yield t
    finally:
        t.kill()


def env_for(isolated_dirs: Path) -> dict[str, str]:
    return {
        "GOLDSET_DATA_DIR": str(isolated_dirs / "data"),
        "GOLDSET_CONFIG_DIR": str(isolated_dirs / "config"),
        "TERM": "xterm-256color",
        "PATH": os.environ.get("PATH", ""),
    }


def decisions(store: Path) -> list[tuple[str, int | None]]:
    path = journal_path(store, "dee")
    return (
        [(r["doc_id"], r["grade"]) for r in map(json.loads, path.read_text().splitlines())]
        if path.exists()
        else []
    )


def test_adjudicate_to_the_end_then_export_consensus(
    tmux: Tmux, tmp_path: Path, isolated_dirs: Path
) -> None:
    store = build_example_store(tmp_path / "demo")
    tmux.start(
        f"{shlex.quote(sys.executable)} -m goldset_tui adjudicate --store {shlex.quote(str(store))} --labeller dee",
        env_for(isolated_dirs),
    )
    shown = tmux.wait_for("Disagreement 1 of 2")
    assert "errors/conn-reset" in shown and "spread 3" in shown  # the biggest first
    tmux.keys("2")
    tmux.wait_for("saved q3 / errors/conn-reset = 2")
    assert decisions(store) == [("errors/conn-reset", 2)]
    tmux.keys("1")
    tmux.wait_for("All 2 disagreements decided")
    tmux.keys("q")
    deadline = time.monotonic() + 15
    while not tmux.pane_dead() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert tmux.pane_dead()
    out = tmp_path / "consensus.qrels"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "goldset_tui",
            "qrels",
            "--store",
            str(store),
            "--consensus",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env_for(isolated_dirs)},
    )
    assert done.returncode == 0, done.stderr
    lines = {tuple(line.split()) for line in out.read_text().splitlines()}
    assert ("q3", "0", "errors/conn-reset", "2") in lines
    assert ("q1", "0", "sdk/auth#refreshing-keys", "1") in lines
    assert ("q1", "0", "api-keys/rotation", "3") in lines
    assert len(lines) == 12
    provenance = (
        store / "adjudication" / "provenance-unanimous-majority-adjudicator.tsv"
    ).read_text()
    assert "adjudicator\tdee" in provenance


def test_sigkill_loses_no_saved_decision_and_resumes(
    tmux: Tmux, tmp_path: Path, isolated_dirs: Path
) -> None:
    store = build_example_store(tmp_path / "demo")
    command = (
        f"{shlex.quote(sys.executable)} -m goldset_tui adjudicate"
        f" --store {shlex.quote(str(store))} --labeller dee"
    )
    tmux.start(command, env_for(isolated_dirs))
    tmux.wait_for("Disagreement 1 of 2")
    tmux.keys("3")
    tmux.wait_for("saved q3 / errors/conn-reset = 3")
    # The screen said saved: kill without any chance to flush.
    os.killpg(os.getpgid(tmux.pane_pid()), signal.SIGKILL)
    assert decisions(store) == [("errors/conn-reset", 3)]
    tmux.respawn(command, env_for(isolated_dirs))
    shown = tmux.wait_for("Disagreement 2 of 2")  # resumes at the first undecided pair
    assert "1 decided" in shown


def test_the_tmux_helper_leaves_no_program_running(tmp_path: Path, isolated_dirs: Path) -> None:
    # The resumed adjudicator of the SIGKILL test is what used to leak: end it the same way.
    store = build_example_store(tmp_path / "demo")
    command = (
        f"{shlex.quote(sys.executable)} -m goldset_tui adjudicate"
        f" --store {shlex.quote(str(store))} --labeller dee"
    )
    t = Tmux()
    try:
        t.start(command, env_for(isolated_dirs))
        t.wait_for("Disagreement 1 of 2")
        os.killpg(
            os.getpgid(t.pane_pid()), signal.SIGKILL
        )  # frees the journal lock for the next one
        t.respawn(command, env_for(isolated_dirs))
        t.wait_for("Disagreement 1 of 2")
        started = set(t.pids)
        assert len(started) == 2
    finally:
        t.kill()
    deadline = time.monotonic() + 5
    while any(map(alive, started)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(alive, started))
    assert not (Path(f"/tmp/tmux-{os.getuid()}") / t.socket).exists()


def test_agreement_screen_in_a_real_terminal(
    tmux: Tmux, tmp_path: Path, isolated_dirs: Path
) -> None:
    store = build_example_store(tmp_path / "demo")
    tmux.start(
        f"{shlex.quote(sys.executable)} -m goldset_tui agreement --store {shlex.quote(str(store))} --screen",
        env_for(isolated_dirs),
    )
    shown = tmux.wait_for("Krippendorff's alpha")
    assert "Disagreements, biggest first (6; 0 adjudicated)" in shown
    tmux.keys("Enter")
    shown = tmux.wait_for("grades (spread 3)")
    # Hostile text is shown literally and did nothing: no link, no colour change, app still running.
    assert "[@click=app.quit]" in shown and "␛[31mproxy" in shown
    tmux.keys("Escape")
    tmux.wait_for("Disagreements, biggest first")
    tmux.keys("q")
    deadline = time.monotonic() + 15
    while not tmux.pane_dead() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert tmux.pane_dead()
