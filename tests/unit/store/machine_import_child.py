"""`goldset import --machine` in its own process, killed with SIGKILL at one step (run as a script
by test_machine_import_kill.py, not collected by pytest).

    python machine_import_child.py STORE LABELLER FILE MODE

MODE ``after-provenance``: the confidence/rationale file written, before the manifest record.
MODE ``before-part``: after the manifest record (and the machine mark), before the grades' part.
MODE ``in-rename``: the part's temporary file written and fsynced, killed at its rename.
MODE ``after-part``: the part renamed into place, killed before the writer closes.
"""

from __future__ import annotations

import sys

from human_import_child import die, kill_at_the_part  # this folder is the script's: sys.path[0]

import goldset_tui.store.machine as machine_module
from goldset_tui.cli import main


def run() -> None:
    store, labeller, path, mode = sys.argv[1:5]
    original_side = machine_module.atomic_write

    def atomic_write(target, write):
        original_side(target, write)
        if mode == "after-provenance":
            die()

    machine_module.atomic_write = atomic_write
    kill_at_the_part(mode)
    main(["import", "--store", store, "--labeller", labeller, "--machine", path])
    print("not killed", flush=True)


if __name__ == "__main__":
    run()
