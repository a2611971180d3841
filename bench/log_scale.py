"""Logs of any size: `goldset classify` on a generated log, beside a bare Polars scan of the file.

    python bench/log_scale.py --gb 5 [--distinct 200000] [--runs 1] [--folder /tmp] [--keep]
    python bench/log_scale.py --lines 6000000 --runs 3 [--json] [--peers "polars distinct count"]
    python bench/log_scale.py --lines 6000000 --format jsonl --baseline /path/to/old/tree --peers ""
    python bench/log_scale.py --lines 6000000 --command draw --baseline /path/to/old/tree --peers ""
    python bench/log_scale.py --lines 6000000 --command drift --baseline /path/to/old/tree --peers ""
    python bench/log_scale.py --gb 0.3 --command compare --baseline /path/to/old/tree --peers ""

Generates a plain-text query log, seeded: about --gb gigabytes with a Zipf-like head over
--distinct distinct queries, shaped like a real search log, with identifiers, negations, typos
and title-cased entities; or, with --lines, that many lines of which almost all are distinct
(a public web search engine's log: one line in fifty repeats a head query); or --log, a file of
one's own. --format writes the same queries as a CSV, Parquet or JSON lines log (one ``query``
field a line). Then runs, each in its own process, alternating, --runs times:

- `goldset classify LOG -o labels.parquet --vocab vocab.txt` (counting, normalising, the rules,
  the labels and manifest written);
- with --command draw, `goldset sample draw LOG --log -o sample.csv --seed 7 --total 160
  --vocab vocab.txt` instead (the log classified, then the seeded draw);
- with --command drift, `goldset drift --labels old.csv --log LOG --format json --vocab
  vocab.txt` (the log classified as the new side against a small old labels file);
- with --command compare, `goldset classify --compare LOG synthetic.txt --format json --vocab
  vocab.txt` (the log as the real side, a few hundred generated queries as the other);
- with --baseline DIR, the same goldset command run from the source tree DIR (PYTHONPATH), in
  turn with this tree's: before and after a change, under the same load;
- the peers (--peers): a bare Polars streaming scan that touches every byte
  (`pl.scan_lines(LOG).select(pl.col("line").str.len_bytes().sum())`), Polars' streaming
  group-by of the raw lines, and Polars' distinct count of the normalised lines (the reference
  where almost every query is distinct: counting is then the whole work).

It reports, per process, the CPU time (user + system, from os.wait4's rusage: the machine is
shared, so wall time says more about the neighbours than about goldset) and the peak resident
memory, the medians over --runs, goldset's CPU time as a ratio of each peer's, and the load
average. With --json the table goes to stderr and stdout gets one JSON line:
{"bench": "log_scale", "log_bytes": ..., "load": [min, max], "processes": {"goldset_classify":
{"cpu_s", "peak_rss_mb", "wall_s"}, "polars_distinct_count": {...}, ...}}.
Goals: peak memory under 1 GB whatever the log; at most 2x Polars' distinct count.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
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
                .then(pl.concat_str([pl.lit("Sync Stripe and Salesforce"), base], separator=" "))
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


def as_format(text_log: Path, fmt: str) -> Path:
    """The text log's lines as a ``fmt`` log (one ``query`` a row), written beside it, streamed."""
    if fmt == "text":
        return text_log
    out = text_log.with_suffix({"csv": ".csv", "parquet": ".parquet", "jsonl": ".jsonl"}[fmt])
    lines = pl.scan_lines(text_log, name="query", glob=False)
    if fmt == "csv":
        lines.sink_csv(out)
    elif fmt == "parquet":
        lines.sink_parquet(out)
    else:
        lines.sink_ndjson(out)
    text_log.unlink()
    return out


def generate(work: Path, lines: int | None, gb: float, distinct: int, fmt: str) -> Path:
    """The generated log (module docstring), in ``fmt``."""
    log = work / "log.txt"
    if lines is not None:
        write_distinct_log(log, lines)
    else:
        write_log(log, gb, distinct)
    return as_format(log, fmt)


# drift's old side: a small labels file over the built-in strata (the new side is the log).
OLD_LABELS = (
    "query,count,stratum\nerr_4021 failing,30,exact_identifier\n"
    "regions not covered,20,negation\nsync stripe and salesforce,15,multi_entity\n"
    "how do i rotate a key,40,paraphrase\nrotaet api kee,5,misspelled\n"
)


def measure(argv: list[str], tree: Path | None = None) -> tuple[float, float, float]:
    """(CPU seconds, peak RSS in MB, wall seconds) of one child process (``tree``: the source
    tree it imports goldset_tui from)."""
    env = None if tree is None else {**os.environ, "PYTHONPATH": str(tree)}
    start = time.monotonic()
    # From a folder without a goldset_tui: `python -m` puts the working folder first on the path,
    # ahead of PYTHONPATH, and a run from a checkout would import that checkout whatever ``tree``.
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tempfile.gettempdir(),
    )
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
# Polars alone counting the distinct normalised lines (goldset's normal form spelled out: every
# run of Unicode whitespace or U+001C-U+001F to one space, trimmed, lowercased): the reference
# for logs of mostly distinct queries, where counting is the work.
DISTINCT = (
    "import sys, polars as pl; "
    "q = pl.col('line').str.replace_all(r'[\\s\\x1C-\\x1F]+', ' ').str.strip_chars(' ')"
    ".str.to_lowercase(); "
    "print(pl.scan_lines(sys.argv[1], glob=False).select(q.alias('q')).group_by('q')"
    ".agg(pl.len()).select(pl.len()).collect(engine='streaming').item())"
)
SCAN = (
    "import sys, polars as pl; "
    "pl.scan_lines(sys.argv[1], glob=False).select(pl.col('line').str.len_bytes().sum())"
    ".collect(engine='streaming')"
)
# The same for a JSON lines log (--format jsonl): Polars parsing each line's query field.
JSONL_DISTINCT = (
    "import sys, polars as pl; "
    "q = pl.col('query').str.replace_all(r'[\\s\\x1C-\\x1F]+', ' ').str.strip_chars(' ')"
    ".str.to_lowercase(); "
    "print(pl.scan_ndjson(sys.argv[1]).select(q.alias('q')).group_by('q')"
    ".agg(pl.len()).select(pl.len()).collect(engine='streaming').item())"
)
PEERS = {
    "polars scan": SCAN,
    "scan + group_by": GROUP,
    "polars distinct count": DISTINCT,
    "polars jsonl distinct count": JSONL_DISTINCT,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=1.0)
    parser.add_argument("--distinct", type=int, default=200_000)
    parser.add_argument(
        "--lines",
        type=int,
        help="instead of --gb/--distinct: a log of this many lines, almost all distinct",
    )
    parser.add_argument("--log", type=Path, help="measure this text log instead of writing one")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument(
        "--format",
        choices=("text", "csv", "parquet", "jsonl"),
        default="text",
        help="write the generated log in this format (default: plain text)",
    )
    parser.add_argument(
        "--command",
        choices=("classify", "draw", "drift", "compare"),
        default="classify",
        help="the goldset command measured: classify, sample draw --log, drift --log or "
        "classify --compare",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="also run the goldset command from this source tree, in turn with this one's",
    )
    parser.add_argument(
        "--peers",
        default=",".join(p for p in PEERS if "jsonl" not in p),
        help=f"comma-separated references to run beside goldset (of: {', '.join(PEERS)})",
    )
    parser.add_argument("--folder", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--keep", action="store_true", help="keep the generated log")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON line on stdout (cpu_s, peak_rss_mb per process); the table to stderr",
    )
    args = parser.parse_args()
    peers = [p.strip() for p in args.peers.split(",") if p.strip()]
    unknown = [p for p in peers if p not in PEERS]
    if unknown:
        parser.error(f"unknown peer(s): {', '.join(unknown)}")
    show = sys.stderr if args.json else sys.stdout
    work = Path(tempfile.mkdtemp(prefix="goldset-log-scale-", dir=args.folder))
    vocab = work / "vocab.txt"
    vocab.write_text("\n".join(WORDS) + "\n")
    t = time.monotonic()
    if args.log is not None:
        log, shape = args.log, "given"
        size = log.stat().st_size
    else:
        lines = f"{args.lines:,} lines, almost all distinct" if args.lines is not None else None
        shape = lines or f"{args.distinct:,} distinct queries"
        if args.format != "text":
            shape += f", as {args.format}"
        # Written by another process: a child's peak RSS (os.wait4) is at least the peak of the
        # process it was started from (Linux keeps the larger across fork and exec), and writing
        # a 6 M-line log took this one to 513 MB, which every goldset run then reported as its
        # own floor.
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            log = pool.apply(generate, (work, args.lines, args.gb, args.distinct, args.format))
        size = log.stat().st_size
    print(f"log: {size / 1e9:.2f} GB, {shape} (ready in {time.monotonic() - t:.0f} s)", file=show)
    if args.command == "draw":
        ours = "goldset sample draw"
        work_args = ["sample", "draw", str(log), "--log", "-o", str(work / "sample.csv")]
        work_args += ["--seed", "7", "--total", "160"]
    elif args.command == "drift":
        ours = "goldset drift"
        old = work / "old.csv"
        old.write_text(OLD_LABELS)
        work_args = ["drift", "--labels", str(old), "--log", str(log), "--format", "json"]
    elif args.command == "compare":
        ours = "goldset classify --compare"
        synthetic = work / "synthetic.txt"
        synthetic.write_text("\n".join(make_distinct(400, random.Random(2))) + "\n")
        work_args = ["classify", "--compare", str(log), str(synthetic), "--format", "json"]
    else:
        ours = "goldset classify"
        work_args = ["classify", str(log), "-o", str(work / "labels.parquet")]
    goldset = [sys.executable, "-m", "goldset_tui", *work_args, "--vocab", str(vocab)]
    commands = {ours: goldset}
    trees: dict[str, Path | None] = {ours: Path(__file__).resolve().parents[1]}  # this tree
    if args.baseline is not None:
        commands["baseline"] = goldset
        trees["baseline"] = args.baseline.resolve()
    commands.update({name: [sys.executable, "-c", PEERS[name], str(log)] for name in peers})
    results: dict[str, list[tuple[float, float, float]]] = {name: [] for name in commands}
    loads = []
    try:
        for _ in range(args.runs):  # side by side, alternating, so all see the same load
            for name, argv in commands.items():
                loads.append(os.getloadavg()[0])
                results[name].append(measure(argv, trees.get(name)))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    header = f"{'process':<28} {'CPU s':>8} {'MB/CPU s':>9} {'peak RSS MB':>12} {'wall s':>8}"
    print(f"\n{header}", file=show)
    medians: dict[str, dict[str, float]] = {}
    for name, runs in results.items():
        cpu = statistics.median(r[0] for r in runs)
        rss = statistics.median(r[1] for r in runs)
        wall = statistics.median(r[2] for r in runs)
        medians[name] = {
            "cpu_s": round(cpu, 3),
            "peak_rss_mb": round(rss, 1),
            "wall_s": round(wall, 3),
        }
        rate = size / 1e6 / cpu if cpu else float("inf")
        print(f"{name:<28} {cpu:>8.1f} {rate:>9.0f} {rss:>12.0f} {wall:>8.1f}", file=show)
    load = f"load average {min(loads):.1f}-{max(loads):.1f} (1 min, before each process)"
    cpu = medians[ours]["cpu_s"]
    for name in [*peers, "baseline"] if args.baseline is not None else peers:
        ratio = cpu / medians[name]["cpu_s"]
        print(f"{ours} CPU time / {name}: {ratio:.2f}x", file=show)
    print(
        f"(medians of {args.runs} run(s); CPU time and peak RSS of each child from os.wait4; "
        f"{load})",
        file=show,
    )
    if args.json:
        record = {
            "bench": "log_scale",
            "log_bytes": size,
            "log": shape,
            "runs": args.runs,
            "load": [min(loads), max(loads)],
            "processes": {
                name.replace(" ", "_").replace("+", "and"): m for name, m in medians.items()
            },
        }
        print(json.dumps(record))


if __name__ == "__main__":
    main()
