"""A judging process never outlives its server: when the server is killed outright (SIGKILL, no
chance to close anything), the kernel sends the judging process SIGHUP, which the app handles as
a dropped terminal (flush, release the lock). Checked with real processes and a real SIGKILL."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

CHILD = """
import os, signal, sys, time
from goldset_tui.serve.child import _hang_up_with_parent
def hung_up(*_):
    open(sys.argv[1], "w").write("SIGHUP")
    os._exit(129)
signal.signal(signal.SIGHUP, hung_up)
_hang_up_with_parent(int(sys.argv[2]))
print("ready", flush=True)
time.sleep(60)
"""

PARENT = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", sys.argv[1], sys.argv[2], str(os.getpid())],
                         stdout=subprocess.PIPE, text=True)
child.stdout.readline()
print(child.pid, flush=True)
time.sleep(60)
"""


def test_killing_the_server_hangs_up_its_judging_processes(tmp_path: Path) -> None:
    marker = tmp_path / "hung-up"
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, CHILD, str(marker)], stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    assert not marker.exists()
    parent.kill()
    parent.wait(timeout=30)
    deadline = time.monotonic() + 20
    # The handler creates the file, then writes it: wait for the text, not just the file.
    while not (marker.exists() and marker.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        assert marker.read_text() == "SIGHUP"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)


def test_a_judging_process_whose_server_is_already_gone_leaves_at_once(tmp_path: Path) -> None:
    # --parent names a process that is not its parent: the server died before the child started.
    argv = [sys.executable, "-m", "goldset_tui.serve.child", str(tmp_path / "pool.jsonl")]
    argv += ["--labeller=alice", f"--store={tmp_path / 'store'}", "--parent=1"]
    done = subprocess.run(argv, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 128 + signal.SIGHUP, done.stderr
    assert not (tmp_path / "store").exists()  # nothing was opened or created
