"""A workload in its own process, SIGKILLed just before its Nth disk-changing call (run as a
script by sweep.py, not collected by pytest).

    python child.py WORKLOAD ROOT N

The ledger's events go to stdout as they happen, flushed, so the parent knows what was
acknowledged before the kill. N = -1 counts: the run is not killed, its last line is ``calls: C``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for the faults package

from faults.injector import Injector
from faults.ledger import Ledger
from faults.registry import WORKLOADS


def run() -> None:
    name, root, at = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    workload = WORKLOADS[name]
    injector = Injector("KILL" if at >= 0 else None, at, say=sys.stdout)
    with injector.installed():
        workload.run(root, Ledger(out=sys.stdout))
    print(f"calls: {injector.calls}", flush=True)


if __name__ == "__main__":
    run()
