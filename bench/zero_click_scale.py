"""What `goldset classify --clicks` costs on top of `goldset classify`, and what `goldset drift`
costs on two labels files, on a synthetic log of N rows (almost all distinct queries, a quarter
to a half of them zero-click, every word shared by many queries: the candidate search's worst
case, twenty large groups).

Whole-process CPU (user + system) and peak RSS from os.wait4, medians of --runs runs, the load
average printed beside them. No peer tool does this; the baseline is classify alone.

    python bench/zero_click_scale.py --rows 1000000 --runs 3
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

WORDS = [
    "refund",
    "invoice",
    "export",
    "api",
    "key",
    "rotate",
    "webhook",
    "retry",
    "charge",
    "plan",
    "sso",
    "region",
    "card",
    "draft",
    "sync",
    "user",
    "token",
    "page",
    "settings",
    "account",
    "billing",
    "error",
    "timeout",
    "limit",
    "quota",
]


def write_log(path: Path, rows: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        out.write("query,count,clicks\n")
        for i in range(rows):
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
            out.write(f"{words} {i % 50_000},1,{rng.choice((0, 0, 1, 2))}\n")


def measure(argv: list[str], runs: int) -> tuple[float, float]:
    cpu, rss = [], []
    for _ in range(runs):
        child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        if status != 0:
            raise SystemExit(f"failed: {' '.join(argv)}")
        cpu.append(usage.ru_utime + usage.ru_stime)
        rss.append(usage.ru_maxrss / 1024)
    return statistics.median(cpu), statistics.median(rss)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    goldset = [sys.executable, "-m", "goldset_tui"]
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        log = tmp / "log.csv"
        write_log(log, args.rows)
        plain, clicks = tmp / "plain.csv", tmp / "clicks.csv"
        print(f"load before: {os.getloadavg()[0]:.1f}")
        rows = [
            ("classify", measure([*goldset, "classify", str(log), "-o", str(plain)], args.runs)),
            (
                "classify --clicks",
                measure(
                    [*goldset, "classify", str(log), "-o", str(clicks), "--clicks", "clicks"],
                    args.runs,
                ),
            ),
            (
                "drift, two labels with zero_click",
                measure(
                    [*goldset, "drift", "--labels", str(clicks), "--labels", str(clicks)],
                    args.runs,
                ),
            ),
        ]
        print(f"load after: {os.getloadavg()[0]:.1f}")
    print(f"{'command':<36} {'CPU s':>7} {'peak MB':>8}   ({args.rows:,} rows)")
    for name, (cpu, rss) in rows:
        print(f"{name:<36} {cpu:>7.2f} {rss:>8.0f}")


if __name__ == "__main__":
    main()
