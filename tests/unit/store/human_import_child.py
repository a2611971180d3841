"""`goldset import --human` in its own process, killed with SIGKILL at one step (run as a script by
test_human_import_kill.py, not collected by pytest).

    python human_import_child.py STORE LABELLER FILE MODE

MODE ``before-part``: after the manifest record, before the judgments' part is written.
MODE ``in-rename``: the part's temporary file written and fsynced, killed at its rename.
MODE ``after-part``: the part renamed into place, killed before the writer closes.
"""

from __future__ import annotations

import os
import signal
import sys

import goldset_tui.store.files as files
import goldset_tui.store.writer as writer_module
from goldset_tui.cli import main


def die(*_args, **_kwargs):
    os.kill(os.getpid(), signal.SIGKILL)


def kill_at_the_part(mode: str) -> None:
    """The writer's judgments' part kills this process at ``mode``'s step (``before-part``,
    ``in-rename``, else once the part is in place, before the writer closes). Shared with
    machine_import_child.py, whose import writes its part the same way."""
    original = writer_module.write_part

    def write_part(folder, frame):
        if mode == "before-part":
            die()
        if mode == "in-rename":
            files.os.replace = die
        written = original(folder, frame)
        die()
        return written

    writer_module.write_part = write_part


def run() -> None:
    store, labeller, path, mode = sys.argv[1:5]
    kill_at_the_part(mode)
    main(["import", "--store", store, "--labeller", labeller, "--human", path])
    print("not killed", flush=True)


if __name__ == "__main__":
    run()
