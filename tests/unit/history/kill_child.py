"""A goldset command in its own process, killed with SIGKILL just before the Nth call that changes
the disk (run as a script by test_record_kill.py and test_pool_extend.py, not collected by pytest).

    python kill_child.py N WHERE GOLDSET_ARGS...

WHERE is ``-`` to count from the command's start, or ``module:function`` to count only inside that
function (the calls of reading and computing before it change nothing worth a kill).
N = -1 counts: the run is not killed, and its last line on stdout is ``calls: C``. Killing before
each call in turn, 0 <= N < C, reaches every state the disk can be left in between two of them
(nothing else this process does changes the disk), so the tests are deterministic: no timer picks
the moment, and a kill that misses is seen (the run exits instead of dying).
"""

from __future__ import annotations

import importlib
import io
import os
import signal
import sys

from goldset_tui.cli import main

WRITE_MODES = set("wax+")
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def run() -> None:
    kill_at, where, args = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    armed = where == "-"
    calls = 0

    def step() -> None:
        nonlocal calls
        if not armed:
            return
        if calls == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        calls += 1

    def counting(original, changes=lambda *a, **k: True):
        def call(*a, **k):
            if changes(*a, **k):
                step()
            return original(*a, **k)

        return call

    for name in ("mkdir", "replace", "rename", "unlink", "chmod", "fsync", "write", "ftruncate"):
        setattr(os, name, counting(getattr(os, name)))
    os.open = counting(os.open, lambda _path, flags, *a, **k: bool(flags & WRITE_FLAGS))
    io.open = counting(io.open, lambda _f, mode="r", *a, **k: bool(WRITE_MODES & set(str(mode))))

    if where != "-":
        module_name, function_name = where.split(":")
        module = importlib.import_module(module_name)
        original = getattr(module, function_name)

        def arming(*a, **k):
            nonlocal armed
            armed = True
            try:
                return original(*a, **k)
            finally:
                armed = False

        setattr(module, function_name, arming)

    status = main(args)
    print(f"calls: {calls}", flush=True)
    sys.exit(status)


if __name__ == "__main__":
    run()
