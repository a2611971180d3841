"""`goldset merge` in its own process, for the crash tests (run as a script, not collected).

    python merge_child.py TARGET SOURCE... [--die-at-rename K]

With ``--die-at-rename K`` the process SIGKILLs itself at the K-th ``os.rename``/``os.replace``
of the merge (each atomic write and each folder swap is one), so every step gets a kill.
"""

from __future__ import annotations

import os
import signal
import sys

import goldset_tui.store.files as files
import goldset_tui.store.staging as staging
from goldset_tui.store.merge import merge_stores


def main() -> None:
    args = sys.argv[1:]
    die_at = None
    if "--die-at-rename" in args:
        i = args.index("--die-at-rename")
        die_at = int(args[i + 1])
        del args[i : i + 2]
    if die_at is not None:
        calls = [0]

        def counting(real):
            def rename(src, dst):
                calls[0] += 1
                if calls[0] == die_at:
                    os.kill(os.getpid(), signal.SIGKILL)
                return real(src, dst)

            return rename

        files.os.replace = counting(os.replace)  # the same os module: patch both names once
        staging.os.rename = counting(os.rename)
    result = merge_stores(args[0], args[1:])
    print("merged", sum(result.added.values()), flush=True)


if __name__ == "__main__":
    main()
