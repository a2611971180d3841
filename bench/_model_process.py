"""One `goldset` command in a fresh process against the local fake model server: what the model
benchmarks (bench/judge_machine.py, bench/synth.py) time, each case the same way."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measured(argv: list[str], api_key: str) -> tuple[float, float, float]:
    """(CPU seconds, peak MB, wall seconds) of ``goldset ARGV`` in a fresh process, with
    ``api_key`` as its Anthropic key (the fake server's)."""
    env = {**os.environ, "ANTHROPIC_API_KEY": api_key, "PYTHONPATH": str(ROOT)}
    start = time.monotonic()
    child = subprocess.Popen(
        [sys.executable, "-m", "goldset_tui", *argv],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"goldset {' '.join(argv)} exited {code}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, wall
