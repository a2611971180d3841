"""The whole I/O fault sweep: every writing workload, every call; EIO, ENOSPC, persistent EIO, KILL.

For each workload of tests/faults/registry.py (the store API and each writing command), the calls
that change the disk are counted on a run without faults; then for every N the workload runs
again with call N failing once (EIO, then ENOSPC), with every call from N on failing until the
operation ends (EIO*), and in a child process SIGKILLed just before call N. After each,
tests/faults/sweep.py checks what goldset promised (every acknowledged record there, nothing
reported failed counted, one-line errors, a rerun that completes, nothing left behind). The suite
runs the store API's points (tests/faults/test_fault_sweep.py); this runs them all and prints, per
workload, the points covered and the violations.

    python bench/fault_sweep.py                          # everything (several minutes)
    python bench/fault_sweep.py --workload "store API" --no-kill
    python bench/fault_sweep.py --kill-every 5           # a kill at every 5th call only

Exit status 1 when any point violates a promise (each is listed), 0 otherwise. The work happens in
a folder under /dev/shm when there is one: fsync's cost is the disk's, not what is measured.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

from faults.registry import WORKLOADS  # noqa: E402
from faults.sweep import Point, prepare, sweep  # noqa: E402


def scratch() -> str | None:
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--workload", action="append", choices=sorted(WORKLOADS), help="(repeatable)"
    )
    parser.add_argument("--no-kill", action="store_true", help="EIO and ENOSPC only")
    parser.add_argument(
        "--kill-every", type=int, default=1, metavar="K", help="kill at every Kth call"
    )
    args = parser.parse_args()
    names = args.workload or list(WORKLOADS)
    started = time.monotonic()
    total = Counter[str]()
    bad: list[Point] = []
    print(
        f"{'workload':<18} {'calls':>5} {'points':>6} {'EIO':>5} {'ENOSPC':>6} {'EIO*':>5} "
        f"{'KILL':>5} {'violations':>10}"
    )
    with tempfile.TemporaryDirectory(prefix="goldset-faults-", dir=scratch()) as base:
        for name in names:
            prepared = prepare(WORKLOADS[name], Path(base) / "w")
            kills = [] if args.no_kill else range(0, prepared.calls, args.kill_every)
            points = sweep(prepared, kills=kills)
            covered = [p for p in points if p.call is not None]
            by_fault = Counter(p.fault for p in covered)
            violating = [p for p in points if p.violations]
            bad += violating
            total.update(calls=prepared.calls, points=len(covered), violations=len(violating))
            print(
                f"{name:<18} {prepared.calls:>5} {len(covered):>6} {by_fault['EIO']:>5} "
                f"{by_fault['ENOSPC']:>6} {by_fault['EIO*']:>5} {by_fault['KILL']:>5} "
                f"{len(violating):>10}",
                flush=True,
            )
    print(
        f"{'all':<18} {total['calls']:>5} {total['points']:>6} {'':>5} {'':>6} {'':>5} {'':>5} "
        f"{total['violations']:>10}   ({time.monotonic() - started:.0f} s, load "
        f"{os.getloadavg()[0]:.1f})"
    )
    for point in bad:
        print(f"\n{point.workload}: {point.fault} at call {point.at} ({point.call}):")
        for violation in point.violations:
            print(f"  - {violation[:400]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
