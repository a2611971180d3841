"""Benchmark: load and validate a 1,000,000-row pool (25,000 queries x 40 candidates).

    python bench/load_pool.py                      # full size (about 0.6 GB of text)
    python bench/load_pool.py --queries 2500       # a tenth, while developing

The pool is generated once (seeded) into --dir as Parquet and CSV, texts 300-800 characters of
word-like tokens, each document's text distinct so Parquet cannot dictionary-encode it away.
Every measurement runs in a fresh Python process, so its peak memory (ru_maxrss) is its own;
the floor is a plain `pl.read_parquet` / `pl.read_csv` of the same file, which reads but checks
nothing. Prints medians of --repeat runs and the ratio to the floor: the wall seconds of the
read inside the child, and the whole child's CPU seconds and peak RSS from ``os.wait4`` (which
the machine's load moves less than the wall clock).

    python bench/load_pool.py --json   # one JSON line on stdout (the table on stderr)
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

CHILD = r"""
import json, resource, sys, time
import polars as pl
method, path = sys.argv[1], sys.argv[2]
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
if method == "goldset load_pool":
    from goldset_tui.io.pools import load_pool
    rows = load_pool(path).frame.height
elif path.endswith(".parquet"):
    rows = pl.read_parquet(path).height
else:
    rows = pl.read_csv(path, infer_schema=False).height
seconds = time.perf_counter() - start
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "rows": rows, "peak_kb": peak_kb, "base_kb": base}))
"""


def generate(directory: Path, queries: int, candidates: int, seed: int = 7) -> dict[str, Path]:
    import numpy as np
    import polars as pl

    stem = f"pool_{queries}x{candidates}"
    paths = {"parquet": directory / f"{stem}.parquet", "csv": directory / f"{stem}.csv"}
    if all(p.exists() for p in paths.values()):
        return paths
    rng = np.random.default_rng(seed)
    n = queries * candidates
    words = np.array(
        [
            "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), size=k))
            for k in rng.integers(2, 11, size=5000)
        ]
    )
    # One long run of words; each text is a slice of it at a random offset (distinct texts).
    buffer = " ".join(words[rng.integers(0, len(words), size=2_000_000)])
    lengths = rng.integers(300, 801, size=n)
    offsets = rng.integers(0, len(buffer) - 801, size=n)
    texts = [buffer[o : o + k] for o, k in zip(offsets.tolist(), lengths.tolist(), strict=True)]
    qidx = np.repeat(np.arange(queries), candidates)
    systems_pool = ["bm25", "bm25_synonyms", "dense_e5", "hybrid_rrf"]
    n_sys = rng.integers(1, 5, size=n)
    frame = pl.DataFrame(
        {
            "query_id": [f"q{q:06d}" for q in qidx.tolist()],
            "query": [f"how do i configure feature {q} in the api" for q in qidx.tolist()],
            "doc_id": [f"doc/{d:08d}" for d in rng.integers(0, 50_000_000, size=n).tolist()],
            "text": texts,
            "title": [f"Title {i % 9973}" for i in range(n)],
            "stratum": [
                ("howto", "navigational", "error", "entity_attr", "migration", "tail")[q % 6]
                for q in qidx.tolist()
            ],
            "systems": [systems_pool[:k] for k in n_sys.tolist()],
            "ranks": [list(range(1, k + 1)) for k in n_sys.tolist()],
        }
    )
    # doc ids drawn at random may repeat within a query: make them unique per query.
    frame = frame.with_columns(
        (pl.col("doc_id") + "-" + pl.int_range(pl.len()).over("query_id").cast(pl.Utf8)).alias(
            "doc_id"
        )
    )
    frame.write_parquet(paths["parquet"])
    frame.with_columns(
        pl.col("systems").list.join(";"), pl.col("ranks").cast(pl.List(pl.Utf8)).list.join(";")
    ).write_csv(paths["csv"])
    return paths


CHILD_METHOD = "goldset load_pool"
SEEN = "goldset load_pool, seen before"  # the pool's sha256 remembered from an earlier open


def measure(method: str, path: Path, repeat: int) -> dict:
    """Each run in a fresh process with its own empty data folder (goldset's first open of the
    file hashes it whole), or, for ``SEEN``, one folder an unmeasured open filled first (the
    sha256 remembered, io/digest_cache.py: every later open of an unchanged file)."""
    runs = []
    with tempfile.TemporaryDirectory(prefix="goldset-bench-data-") as seen_dir:
        if method == SEEN:
            _child(CHILD_METHOD, path, seen_dir)
        for _ in range(repeat):
            with tempfile.TemporaryDirectory(prefix="goldset-bench-data-") as fresh:
                runs.append(_child(method, path, seen_dir if method == SEEN else fresh))
    return {
        "seconds": statistics.median(r["seconds"] for r in runs),
        "cpu_s": statistics.median(r["cpu_s"] for r in runs),
        "peak_mb": statistics.median(r["rss_kb"] for r in runs) / 1024,
        "base_mb": statistics.median(r["base_kb"] for r in runs) / 1024,
        "rows": runs[0]["rows"],
    }


def _child(method: str, path: Path, data_dir: str) -> dict:
    child_method = CHILD_METHOD if method == SEEN else method
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, child_method, str(path)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "GOLDSET_DATA_DIR": data_dir},
    )
    assert child.stdout is not None
    printed = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{method} on {path} failed (exit {child.returncode})")
    run = json.loads(printed)
    run["cpu_s"] = usage.ru_utime + usage.ru_stime
    run["rss_kb"] = usage.ru_maxrss  # the whole child, imports included
    return run


def main() -> None:
    require("numpy")
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=25_000)
    parser.add_argument("--candidates", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "goldset-bench")
    parser.add_argument("--generate-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON line of the headline figures on stdout (the table goes to stderr)",
    )
    parser.add_argument(
        "--formats",
        default="parquet,csv",
        help="which of the generated files to load, comma-separated (default: parquet,csv)",
    )
    args = parser.parse_args()
    out = sys.stderr if args.json else sys.stdout
    load_before = os.getloadavg()
    args.dir.mkdir(parents=True, exist_ok=True)
    if args.generate_only:
        generate(args.dir, args.queries, args.candidates)
        return
    # Generate in another process: Linux carries a parent's peak RSS into the children it
    # forks, so this process must stay small for the children's ru_maxrss to be their own.
    subprocess.run([sys.executable, __file__, "--generate-only", *sys.argv[1:]], check=True)
    paths = generate(args.dir, args.queries, args.candidates)  # already there: just the paths
    print(
        f"pool: {args.queries:,} queries x {args.candidates} candidates"
        f" = {args.queries * args.candidates:,} rows",
        file=out,
    )
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    for fmt in formats:
        path = paths[fmt]
        print(f"  {fmt}: {path} ({path.stat().st_size / 2**20:,.0f} MB)", file=out)
    print(
        f"median of {args.repeat} runs, each in a fresh process; seconds = the read inside it;"
        " CPU and peak = the whole process (os.wait4); base = RSS after importing polars",
        file=out,
    )
    header = (
        f"{'file':<8} {'method':<32} {'seconds':>8} {'x floor':>8} {'CPU s':>7} {'x floor':>8}"
        f" {'peak MB':>8} {'x floor':>8} {'base MB':>8}"
    )
    print(header, file=out)
    print("-" * len(header), file=out)
    figures: dict[str, object] = {
        "bench": "load_pool",
        "rows": args.queries * args.candidates,
        "repeat": args.repeat,
    }
    for fmt in formats:
        path = paths[fmt]
        floor_name = f"pl.read_{'parquet' if fmt == 'parquet' else 'csv'} (floor)"
        floor = measure(floor_name, path, args.repeat)
        ours = measure("goldset load_pool", path, args.repeat)
        seen = measure(SEEN, path, args.repeat)
        assert ours["rows"] == floor["rows"] == seen["rows"]
        for name, m in ((floor_name, floor), ("goldset load_pool", ours), (SEEN, seen)):
            print(
                f"{fmt:<8} {name:<32} {m['seconds']:>8.2f} {m['seconds'] / floor['seconds']:>8.2f}"
                f" {m['cpu_s']:>7.2f} {m['cpu_s'] / floor['cpu_s']:>8.2f}"
                f" {m['peak_mb']:>8.0f} {m['peak_mb'] / floor['peak_mb']:>8.2f}"
                f" {m['base_mb']:>8.0f}",
                file=out,
            )

        def headline(m: dict) -> dict[str, float]:
            return {
                "seconds": round(m["seconds"], 3),
                "cpu_s": round(m["cpu_s"], 3),
                "peak_rss_mb": round(m["peak_mb"], 1),
            }

        figures[fmt] = {
            **headline(ours),
            "seen_before": {
                **headline(seen),
                "cpu_ratio": round(seen["cpu_s"] / floor["cpu_s"], 3),
            },
            "reference": {"name": floor_name.removesuffix(" (floor)"), **headline(floor)},
            "ratio": {
                "seconds": round(ours["seconds"] / floor["seconds"], 3),
                "cpu_s": round(ours["cpu_s"] / floor["cpu_s"], 3),
                "peak_rss_mb": round(ours["peak_mb"] / floor["peak_mb"], 3),
            },
        }
    figures["load"] = [round(x, 2) for x in (*load_before, *os.getloadavg())]
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
