"""Another process finishing an interrupted merge, stopped half-way (run as a script, not
collected), for the lock-race tests.

    python recovery_child.py STORE

Runs the recovery ``Project.open`` runs. Once it holds the merge lock and the writer locks of the
labellers it swaps, just before it applies the merge, it prints ``applying`` and waits for a line
on stdin; then it applies the merge, prints ``done`` and exits.
"""

from __future__ import annotations

import sys
from pathlib import Path

import goldset_tui.store.staging as staging


def main() -> None:
    real_apply = staging.apply

    def gated(store: Path) -> None:
        print("applying", flush=True)
        sys.stdin.readline()
        real_apply(store)

    staging.apply = gated
    staging.recover(Path(sys.argv[1]))
    print("done", flush=True)


if __name__ == "__main__":
    main()
