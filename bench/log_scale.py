"""Logs of any size: `goldset classify` on a generated log, beside a bare Polars scan of the file.

    python bench/log_scale.py --gb 5 [--distinct 200000] [--runs 1] [--folder /tmp] [--keep]

Generates a plain-text query log of about --gb gigabytes (seeded; a Zipf-like head over
--distinct distinct queries, shaped like a real search log, with identifiers, negations, typos
and title-cased entities), then runs, each in its own process:

- `goldset classify LOG -o labels.parquet --vocab vocab.txt` (streaming count, normalising,
  the rules, the labels and manifest written);
- the peer: a bare Polars streaming scan of the same file that touches every byte
  (`pl.scan_lines(LOG).select(pl.col("line").str.len_bytes().sum())`).

It reports, per process, the CPU time (user + system, from os.wait4's rusage: the machine is
shared, so wall time says more about the neighbours than about goldset) and the peak resident
memory, the medians over --runs, and goldset's CPU time as a ratio of the scan's. Goal:
a 5 GB log with peak memory under 1 GB and throughput within 2x of the bare scan.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

WORDS = [
    "how",
    "do",
    "i",
    "rotate",
    "an",
    "api",
    "key",
    "webhook",
    "delivery",
    "pagination",
    "parameters",
    "regions",
    "covered",
    "sync",
    "stripe",
    "salesforce",
    "export",
    "csv",
    "sso",
    "login",
    "billing",
    "invoice",
    "retry",
    "policy",
    "token",
    "limits",
    "quota",
    "upload",
    "download",
    "schema",
    "migration",
    "index",
    "search",
    "filter",
    "sort",
    "page",
    "cursor",
    "error",
    "timeout",
]


def make_distinct(n: int, rng: random.Random) -> list[str]:
    out = []
    for i in range(n):
        q = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 7)))
        r = rng.random()
        if r < 0.1:
            q += f" ERR_{4000 + i % 100}"
        elif r < 0.15:
            q += " not"
        elif r < 0.2:
            q = q.replace("a", "", 1)
        elif r < 0.25:
            q = "Sync Stripe and Salesforce " + q
        elif r < 0.3:
            q = q.title()
        out.append(f"{q} v{i}")
    return out


def write_log(path: Path, gb: float, distinct: int, seed: int = 1) -> int:
    """Write about ``gb`` GB; returns the bytes written. Blocks of 200,000 Zipf-drawn lines."""
    rng = random.Random(seed)
    queries = make_distinct(distinct, rng)
    weights = [1 / (i + 1) ** 1.05 for i in range(distinct)]
    target = int(gb * 1e9)
    written = 0
    blocks = []
    for _ in range(8):  # eight different blocks, cycled: the file is not one block repeated
        lines = rng.choices(queries, weights=weights, k=200_000)
        blocks.append(("\n".join(lines) + "\n").encode())
    # every distinct query at least once, so the labels have them all
    head = ("\n".join(queries) + "\n").encode()
    with path.open("wb") as out:
        out.write(head)
        written += len(head)
        i = 0
        while written < target:
            block = blocks[i % len(blocks)]
            out.write(block)
            written += len(block)
            i += 1
    return written


def write_distinct_log(path: Path, lines: int, seed: int = 1) -> int:
    """Write ``lines`` lines of which almost all are distinct (a web search engine's log: tens of
    millions of distinct queries); returns the bytes written. One in fifty lines repeats one of
    a thousand head queries. Built in blocks with Polars (a Python loop would take minutes)."""
    words = pl.Series(WORDS)
    k = len(WORDS)
    written = 0
    block = 1_000_000
    with path.open("wb") as out:
        for start in range(0, lines, block):
            n = min(block, lines - start)
            frame = pl.DataFrame({"i": pl.int_range(start, start + n, eager=True)})
            h = pl.col("i").hash(seed)
            w1 = pl.lit(words).gather((h % k).cast(pl.Int64))
            w2 = pl.lit(words).gather(((h // k) % k).cast(pl.Int64))
            shape = (h // (k * k)) % 100
            ident = (pl.col("i") * 7919) % 1_000_003
            base = pl.concat_str([w1, ident.cast(pl.String)], separator=" ")
            query = (
                pl.when(shape < 2)  # a head query, repeated
                .then(
                    pl.concat_str([w1, pl.lit("head"), (h % 1000).cast(pl.String)], separator=" ")
                )
                .when(shape < 10)
                .then(pl.concat_str([pl.lit("ERR_"), ident.cast(pl.String), pl.lit(" "), w1]))
                .when(shape < 15)
                .then(pl.concat_str([base, pl.lit("not")], separator=" "))
                .when(shape < 20)
                .then(pl.concat_str([base.str.replace("a", "", literal=True), w2], separator=" "))
                .when(shape < 25)
                .then(pl.concat_str([pl.lit("Sync Stripe and"), base], separator=" "))
                .when(shape < 30)
                .then(base.str.to_titlecase())
                .when(shape < 50)
                .then(pl.concat_str([w2, base, w1], separator=" "))
                .otherwise(base)
            )
            data = frame.select(query.alias("q")).write_csv(
                include_header=False, quote_style="never"
            )
            out.write(data.encode())
            written += len(data.encode())
    return written


def measure(argv: list[str]) -> tuple[float, float, float]:
    """(CPU seconds, peak RSS in MB, wall seconds) of one child process."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    if status != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise SystemExit(f"{argv[:3]} failed: {err}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, wall


GROUP = (
    "import sys, polars as pl; "
    "pl.scan_lines(sys.argv[1], glob=False).group_by('line').agg(pl.len())"
    ".collect(engine='streaming')"
)
SCAN = (
    "import sys, polars as pl; "
    "pl.scan_lines(sys.argv[1], glob=False).select(pl.col('line').str.len_bytes().sum())"
    ".collect(engine='streaming')"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=1.0)
    parser.add_argument("--distinct", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--folder", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--keep", action="store_true", help="keep the generated log")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="goldset-log-scale-", dir=args.folder))
    log, vocab = work / "log.txt", work / "vocab.txt"
    vocab.write_text("\n".join(WORDS) + "\n")
    t = time.monotonic()
    size = write_log(log, args.gb, args.distinct)
    print(
        f"log: {size / 1e9:.2f} GB, {args.distinct:,} distinct queries "
        f"(written in {time.monotonic() - t:.0f} s)"
    )
    goldset = [
        sys.executable,
        "-m",
        "goldset_tui",
        "classify",
        str(log),
        "-o",
        str(work / "labels.parquet"),
        "--vocab",
        str(vocab),
    ]
    scan = [sys.executable, "-c", SCAN, str(log)]
    group = [sys.executable, "-c", GROUP, str(log)]
    results: dict[str, list[tuple[float, float, float]]] = {
        "goldset classify": [],
        "polars scan": [],
        "scan + group_by": [],
    }
    try:
        for _ in range(args.runs):  # side by side, alternating, so both see the same load
            results["polars scan"].append(measure(scan))
            results["goldset classify"].append(measure(goldset))
            results["scan + group_by"].append(measure(group))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"\n{'process':<18} {'CPU s':>8} {'MB/CPU s':>9} {'peak RSS MB':>12} {'wall s':>8}")
    medians = {}
    for name, runs in results.items():
        cpu = statistics.median(r[0] for r in runs)
        rss = statistics.median(r[1] for r in runs)
        wall = statistics.median(r[2] for r in runs)
        medians[name] = cpu
        print(f"{name:<18} {cpu:>8.1f} {size / 1e6 / cpu:>9.0f} {rss:>12.0f} {wall:>8.1f}")
    ratio = medians["goldset classify"] / medians["polars scan"]
    floor = medians["scan + group_by"] / medians["polars scan"]
    print(f"Polars' own group-by of the lines / bare scan: {floor:.2f}x")
    print(
        f"\ngoldset classify CPU time / bare scan: {ratio:.2f}x "
        f"(medians of {args.runs} run(s); CPU time of each child from os.wait4)"
    )


if __name__ == "__main__":
    main()
