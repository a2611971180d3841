"""Durable-save latency per judgment: does it grow with the store?

For an empty store and for one already holding --preload judgments (1,000,000 by default), time
--saves judgments saved one by one through ``JudgmentWriter.record`` (journal append + fdatasync;
a compaction into a new Parquet part every 1,000 saves is included in the timings), and report
median, p99 and max. Side by side, the obvious alternative design as a peer: SQLite (stdlib) in WAL
mode with synchronous=FULL, one INSERT + COMMIT per judgment, on a table with a primary key.

Also reported: opening the writer, reading the latest judgments, and closing (final compaction).

    python bench/save_latency.py                       # 2,000 saves, 1,000,000 preloaded
    python bench/save_latency.py --saves 500 --preload 100000 --dir /tmp

Run it on the disk your stores live on: fsync cost is the disk's, not goldset's.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from goldset_tui.model import Judgment
from goldset_tui.store import Project


def preload_frame(n: int, labeller: str) -> pl.DataFrame:
    """n distinct judgments: 25,000 queries x 40 candidates at the default million."""
    return pl.DataFrame({"i": pl.int_range(0, n, eager=True)}).select(
        pl.lit(labeller).alias("labeller"),
        (pl.col("i") // 40).cast(pl.String).str.pad_start(6, "0").alias("query_id"),
        pl.format("doc-{}", pl.col("i")).alias("doc_id"),
        (pl.col("i") % 4).cast(pl.Int64).alias("grade"),
        pl.lit("2026-01-01T00:00:00.000Z").alias("time"),
        pl.lit(12.5).alias("seconds"),
        (pl.col("i") % 40).cast(pl.Int64).alias("position"),
        pl.lit(None, pl.String).alias("note"),
        pl.lit("judge").alias("kind"),
    )


def summary(samples: list[float]) -> tuple[float, float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return statistics.median(ordered) * 1e3, p99 * 1e3, ordered[-1] * 1e3


def goldset_run(
    folder: Path, preload: int, saves: int
) -> dict[str, float | tuple[float, float, float]]:
    pool = folder / "pool.jsonl"
    pool.write_text("{}\n")
    project = Project.create(folder / "store", pool_path=pool, pool_sha256="bench")
    if preload:
        with project.writer("bench") as writer:
            writer.write_batch(preload_frame(preload, "bench"))
    start = time.perf_counter()
    writer = project.writer("bench")
    opened = time.perf_counter() - start
    samples = []
    for k in range(saves):
        j = Judgment(
            "bench",
            f"new-{k // 40}",
            f"new-doc-{k}",
            k % 4,
            "2026-01-01T00:00:00.000Z",
            seconds=9.0,
            position=k % 40,
        )
        t0 = time.perf_counter()
        writer.record(j)
        samples.append(time.perf_counter() - t0)
    from goldset_tui.store.writer import COMPACT_EVERY

    # The saves that also folded the journal into a new Parquet part (every COMPACT_EVERY-th).
    compacting = [samples[k] for k in range(COMPACT_EVERY - 1, saves, COMPACT_EVERY)]
    start = time.perf_counter()
    writer.close()
    closed = time.perf_counter() - start
    start = time.perf_counter()
    current = project.judgments("bench")
    read = time.perf_counter() - start
    assert current.height == preload + saves, current.height
    worst_compacting = max(compacting, default=float("nan"))
    return {
        "save": summary(samples),
        "open": opened,
        "close": closed,
        "read": read,
        "compacting": worst_compacting,
    }


def sqlite_run(
    folder: Path, preload: int, saves: int
) -> dict[str, float | tuple[float, float, float]]:
    db = sqlite3.connect(folder / "peer.sqlite", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute(
        "CREATE TABLE j (labeller TEXT, query_id TEXT, doc_id TEXT, seq INTEGER, grade INTEGER, time TEXT,"
        " seconds REAL, position INTEGER, note TEXT, kind TEXT, PRIMARY KEY (labeller, query_id, doc_id, seq))"
    )
    if preload:
        rows = (
            preload_frame(preload, "bench")
            .with_row_index("seq")
            .select(
                "labeller",
                "query_id",
                "doc_id",
                "seq",
                "grade",
                "time",
                "seconds",
                "position",
                "note",
                "kind",
            )
            .iter_rows()
        )
        db.execute("BEGIN")
        db.executemany("INSERT INTO j VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
        db.execute("COMMIT")
    samples = []
    for k in range(saves):
        t0 = time.perf_counter()
        db.execute(
            "INSERT INTO j VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                "bench",
                f"new-{k // 40}",
                f"new-doc-{k}",
                preload + k,
                k % 4,
                "2026-01-01T00:00:00.000Z",
                9.0,
                k % 40,
                None,
                "judge",
            ),
        )
        samples.append(time.perf_counter() - t0)
    db.close()
    return {"save": summary(samples)}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--saves", type=int, default=2000, help="judgments saved one by one per run"
    )
    parser.add_argument(
        "--preload", type=int, default=1_000_000, help="judgments already in the big store"
    )
    parser.add_argument(
        "--dir",
        type=Path,
        default=None,
        help="where to make the stores (a folder on the disk to test)",
    )
    parser.add_argument("--no-peer", action="store_true", help="skip the SQLite peer")
    args = parser.parse_args()

    print(f"durable save latency, {args.saves} saves per run (ms; lower is better)\n")
    header = f"{'system':<34} {'judgments in store':>18} {'median':>8} {'p99':>8} {'max':>8}"
    print(header)
    print("-" * len(header))
    extras = []
    results = {}
    for preload in (0, args.preload):
        runs = [("goldset (journal + fdatasync)", goldset_run)]
        if not args.no_peer:
            runs.append(("sqlite WAL synchronous=FULL", sqlite_run))
        for name, run in runs:
            folder = Path(tempfile.mkdtemp(prefix="goldset-bench-", dir=args.dir))
            try:
                result = run(folder, preload, args.saves)
            finally:
                shutil.rmtree(folder, ignore_errors=True)
            median, p99, worst = result["save"]
            results[(name, preload)] = median
            print(f"{name:<34} {preload:>18,} {median:>8.3f} {p99:>8.3f} {worst:>8.1f}", flush=True)
            if "open" in result:
                extras.append(
                    (preload, result["compacting"], result["open"], result["read"], result["close"])
                )
    print()
    name = "goldset (journal + fdatasync)"
    ratio = results[(name, args.preload)] / results[(name, 0)]
    print(f"goldset median with {args.preload:,} judgments / empty store: {ratio:.2f}x")
    print()
    print(
        f"{'goldset, judgments in store':<28} {'save+compact ms':>16} {'open writer s':>14} "
        f"{'read latest s':>14} {'close s':>8}"
    )
    for preload, compacting, opened, read, closed in extras:
        print(
            f"{preload:<28,} {compacting * 1e3:>16.1f} {opened:>14.3f} {read:>14.3f} {closed:>8.3f}"
        )


if __name__ == "__main__":
    main()
