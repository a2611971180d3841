"""Another process working on a store, stopped half-way (run as a script, not collected), for the
lock-race tests.

    python gated_child.py STORE                 finishing STORE's interrupted merge
    python gated_child.py --merge TARGET SOURCE merging SOURCE into TARGET

Once it holds its locks (the merge lock, and the writer locks of the labellers it changes), just
before it applies the merge (or, merging, once it has locked the labellers it writes, before it
reads their histories under those locks), it prints ``waiting`` and waits for a line on
stdin; then it goes on, prints ``done`` and exits.
"""

from __future__ import annotations

import sys
from pathlib import Path

import goldset_tui.store.merge as merge
import goldset_tui.store.staging as staging


def gate(real):
    def gated(*args, **kwargs):
        print("waiting", flush=True)
        sys.stdin.readline()
        return real(*args, **kwargs)

    return gated


def gate_after(real):
    def gated(*args, **kwargs):
        out = real(*args, **kwargs)
        print("waiting", flush=True)
        sys.stdin.readline()
        return out

    return gated


def main() -> None:
    if sys.argv[1] == "--merge":
        merge._lock_labellers = gate_after(merge._lock_labellers)
        merge.merge_stores(Path(sys.argv[2]), [Path(sys.argv[3])])
    else:
        staging.apply = gate(staging.apply)
        staging.recover(Path(sys.argv[1]))
    print("done", flush=True)


if __name__ == "__main__":
    main()
