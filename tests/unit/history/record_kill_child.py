"""`goldset report --store --release` in its own process, killed with SIGKILL just before the Nth
call that changes the disk while the history is recorded (run as a script by test_record_kill.py,
not collected by pytest).

    python record_kill_child.py N REPORT_ARGS...

N = -1 counts: the run is not killed, and its last line is ``calls: C``, the number of such calls.
Killing before each call in turn, 0 <= N < C, reaches every state the disk can be left in between
two of them (nothing else changes the disk), so the test is deterministic: no timer picks the moment.
"""

from __future__ import annotations

import io
import os
import signal
import sys

import goldset_tui.history.recording as recording
from goldset_tui.cli import main

WRITE_MODES = set("wax+")
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def run() -> None:
    kill_at = int(sys.argv[1])
    armed = False
    calls = 0

    def step() -> None:
        nonlocal calls
        if not armed:
            return
        if calls == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        calls += 1

    def counting(original, changes=lambda *a, **k: True):
        def call(*args, **kwargs):
            if changes(*args, **kwargs):
                step()
            return original(*args, **kwargs)

        return call

    os.mkdir = counting(os.mkdir)
    os.replace = counting(os.replace)
    os.rename = counting(os.rename)
    os.unlink = counting(os.unlink)
    os.chmod = counting(os.chmod)
    os.fsync = counting(os.fsync)
    os.write = counting(os.write)
    os.ftruncate = counting(os.ftruncate)
    os.open = counting(os.open, lambda _path, flags, *a, **k: bool(flags & WRITE_FLAGS))
    io.open = counting(io.open, lambda _f, mode="r", *a, **k: bool(WRITE_MODES & set(str(mode))))
    original_record = recording.record

    def record(*args, **kwargs):
        nonlocal armed
        armed = True  # only the recording: reading the runs and computing the report change nothing
        try:
            return original_record(*args, **kwargs)
        finally:
            armed = False

    recording.record = record
    status = main(sys.argv[2:])
    print(f"calls: {calls}", flush=True)
    sys.exit(status)


if __name__ == "__main__":
    run()
