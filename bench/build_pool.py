"""Benchmark: `goldset pool` over 4 TREC runs of 7,000 queries x 1,000 documents (28 million lines).

    python bench/build_pool.py                       # full size (about 1 GB of runs)
    python bench/build_pool.py --queries 700         # a tenth, while developing

Runs are generated once (seeded) into --dir: each query has 1,500 documents with a latent
relevance; each system scores them latent + its own noise, keeps its top 1,000 and rounds scores
to two decimals, so the runs overlap at the top the way real systems do and are full of ties.

Peer: a straightforward plain-Python pooler (dicts, `str.split`, `sorted`), the kind of script
people write before reaching for a tool; trectools is not installed. Both write a CSV pool; the
benchmark checks they produce the same union, systems and ranks, then prints medians of
--repeat runs, each in a fresh process (peak memory = that process's ru_maxrss).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _needs import require  # bench/ is sys.path[0] when a script runs

ROOT = Path(__file__).resolve().parents[1]
SYSTEMS = ("bm25", "bm25_synonyms", "dense_e5", "hybrid_rrf")

GOLDSET_CHILD = r"""
import json, resource, sys, time, io, contextlib
from goldset_tui.cli import main
argv = json.loads(sys.argv[1])
start = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    status = main(argv)
seconds = time.perf_counter() - start
assert status == 0, status
print(json.dumps({"seconds": seconds, "peak_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""

# The floor: Polars reading the three columns a pool needs from every run, on its own thread
# pool, checking nothing and ranking nothing. What `goldset pool` costs beyond it is the checks
# (every line: fields, finite scores, duplicates), the top K and writing the pool.
FLOOR_CHILD = r"""
import json, resource, sys, time
import polars as pl
runs = json.loads(sys.argv[1])
start = time.perf_counter()
schema = {"query_id": pl.String, "q0": pl.String, "doc_id": pl.String, "rank": pl.String,
          "score": pl.Float64, "tag": pl.String}
for path in runs:
    pl.scan_csv(path, has_header=False, separator=" ", quote_char=None, schema=schema).select(
        "query_id", "doc_id", "score").collect()
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "peak_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""

# The peer: what a careful person writes in plain Python. trec_eval order: score descending,
# ties by doc id descending (sorting (score, doc) pairs in reverse does exactly that).
PYTHON_CHILD = r"""
import json, resource, sys, time
from collections import defaultdict
runs, depth, topics_path, out = json.loads(sys.argv[1])
start = time.perf_counter()
topics = [line.split("\t", 1)[0] for line in open(topics_path, encoding="utf-8") if line.strip()]
pool = defaultdict(dict)   # qid -> doc -> [(system, rank)]
for name, path in runs:
    per_query = defaultdict(list)
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            qid, _, doc, _, score, _ = line.split()
            per_query[qid].append((float(score), doc))
    for qid, docs in per_query.items():
        docs.sort(reverse=True)
        for rank, (_, doc) in enumerate(docs[:depth], start=1):
            pool[qid].setdefault(doc, []).append((name, rank))
with open(out, "w", encoding="utf-8") as fh:
    fh.write("query_id,doc_id,systems,ranks\n")
    for qid in topics:
        for doc, hits in pool.get(qid, {}).items():
            fh.write(f"{qid},{doc},{';'.join(s for s, _ in hits)},{';'.join(str(r) for _, r in hits)}\n")
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "peak_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def generate(directory: Path, queries: int, docs: int, seed: int = 11) -> tuple[list[Path], Path]:
    import numpy as np
    import polars as pl

    stem = f"{queries}x{docs}"
    runs = [directory / f"{name}_{stem}.run" for name in SYSTEMS]
    topics = directory / f"topics_{queries}.tsv"
    if topics.exists() and all(p.exists() for p in runs):
        return runs, topics
    rng = np.random.default_rng(seed)
    universe = docs * 3 // 2
    latent = rng.normal(size=(queries, universe))
    qids = np.repeat(np.arange(queries), docs)
    for noise, path in zip((0.6, 0.7, 0.9, 0.5), runs, strict=True):
        scores = np.round(latent + noise * rng.normal(size=latent.shape), 2)
        top = np.argpartition(-scores, docs - 1, axis=1)[:, :docs]
        chosen = np.take_along_axis(scores, top, axis=1)
        doc_numbers = (np.arange(queries)[:, None] * universe + top).ravel()
        frame = pl.DataFrame({"q": qids, "d": doc_numbers, "s": chosen.ravel()}).select(
            pl.format("q{}", "q").alias("qid"),
            pl.lit("Q0").alias("q0"),
            pl.format("doc{}", "d").alias("doc"),
            pl.lit(0).alias("rank"),  # the rank column is ignored by trec_eval, so by pooling too
            pl.col("s").alias("score"),
            pl.lit(path.name.split("_")[0]).alias("tag"),
        )
        frame.write_csv(path, separator=" ", include_header=False)
    topics.write_text(
        "".join(f"q{q}\tquery number {q}\n" for q in range(queries)), encoding="utf-8"
    )
    return runs, topics


def measure(child: str, payload: list | dict, repeat: int) -> dict:
    """Medians over ``repeat`` fresh processes: wall seconds of the work (timed inside the
    child, start-up excluded), CPU seconds of the whole process (user + system, its threads
    included, from os.wait4: what a loaded machine does not inflate much) and peak memory."""
    runs = []
    for _ in range(repeat):
        with tempfile.TemporaryFile() as out_file, tempfile.TemporaryFile() as err_file:
            child_process = subprocess.Popen(
                [sys.executable, "-c", child, json.dumps(payload)],
                stdout=out_file,
                stderr=err_file,
                cwd=ROOT,
            )
            _, status, usage = os.wait4(child_process.pid, 0)
            out_file.seek(0)
            err_file.seek(0)
            if os.waitstatus_to_exitcode(status):
                raise SystemExit(err_file.read().decode())
            result = json.loads(out_file.read().decode().strip().splitlines()[-1])
        result["cpu"] = usage.ru_utime + usage.ru_stime
        runs.append(result)
    return {
        "seconds": statistics.median(r["seconds"] for r in runs),
        "cpu": statistics.median(r["cpu"] for r in runs),
        "peak_mb": statistics.median(r["peak_kb"] for r in runs) / 1024,
    }


def same_pool(ours: Path, peer: Path) -> bool:
    import polars as pl

    def key(path: Path) -> set:
        frame = pl.read_csv(path, infer_schema=False).select(
            "query_id", "doc_id", "systems", "ranks"
        )
        return set(frame.rows())

    return key(ours) == key(peer)


def main() -> None:
    require("numpy")
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=7_000)
    parser.add_argument("--docs", type=int, default=1_000)
    parser.add_argument("--depth", type=int, nargs="+", default=[20, 100])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "goldset-bench")
    parser.add_argument(
        "--no-peer",
        action="store_true",
        help="skip the plain-Python peer (45 s of CPU): for before/after runs of goldset alone",
    )
    parser.add_argument("--generate-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    if args.generate_only:
        generate(args.dir, args.queries, args.docs)
        return
    # Generate in another process so this one stays small: Linux carries a parent's peak RSS
    # into the children it forks.
    subprocess.run([sys.executable, __file__, "--generate-only", *sys.argv[1:]], check=True)
    runs, topics = generate(args.dir, args.queries, args.docs)
    lines = args.queries * args.docs
    size = sum(p.stat().st_size for p in runs) / 2**20
    print(
        f"{len(runs)} runs x {args.queries:,} queries x {args.docs:,} documents"
        f" = {len(runs) * lines:,} lines ({size:,.0f} MB)"
    )
    print(
        f"median of {args.repeat} runs, each in a fresh process; wall = the work inside the process,"
        f" cpu = user + system of the whole process (os.wait4), peak = ru_maxrss;"
        f" load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    header = (
        f"{'depth':>5} {'tool':<24} {'wall s':>7} {'cpu s':>6} {'cpu x goldset':>13}"
        f" {'peak MB':>8} {'pool rows':>10}"
    )
    print(header)
    print("-" * len(header))
    for depth in args.depth:
        ours_out = args.dir / f"pool_goldset_{depth}.csv"
        argv = [
            "pool",
            *[a for name, p in zip(SYSTEMS, runs, strict=True) for a in ("--run", f"{name}={p}")],
            "--depth",
            str(depth),
            "--topics",
            str(topics),
            "-o",
            str(ours_out),
        ]
        ours = measure(GOLDSET_CHILD, argv, args.repeat)
        rows = sum(1 for _ in ours_out.open()) - 1
        table = [("goldset pool", ours, f"{rows:,}")]
        floor = measure(FLOOR_CHILD, [str(p) for p in runs], args.repeat)
        table.append(("Polars read, no checks", floor, "-"))
        if not args.no_peer:
            table.append(
                ("plain Python (dicts)", _peer(args, runs, depth, topics, ours_out), f"{rows:,}")
            )
        for name, m, shown in table:
            print(
                f"{depth:>5} {name:<24} {m['seconds']:>7.2f} {m['cpu']:>6.2f}"
                f" {m['cpu'] / ours['cpu']:>13.2f} {m['peak_mb']:>8.0f} {shown:>10}"
            )
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


def _peer(
    args: argparse.Namespace, runs: list[Path], depth: int, topics: Path, ours_out: Path
) -> dict:
    """The plain-Python peer's measurement, after checking it builds the same pool."""
    peer_out = args.dir / f"pool_python_{depth}.csv"
    peer = measure(
        PYTHON_CHILD,
        [
            [[n, str(p)] for n, p in zip(SYSTEMS, runs, strict=True)],
            depth,
            str(topics),
            str(peer_out),
        ],
        args.repeat,
    )
    if not same_pool(ours_out, peer_out):
        raise SystemExit(f"depth {depth}: goldset and the plain-Python peer disagree on the pool")
    return peer


if __name__ == "__main__":
    main()
