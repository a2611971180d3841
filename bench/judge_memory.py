"""Does the judging screen's memory stay flat over a day of keys?

The judging screen runs under Textual's Pilot on a generated pool (``--queries`` x ``--per-query``
candidates, each text ``--text`` characters) with an in-memory writer; the script presses grade
keys (a grade moves on; about one key in ``--per-query`` finishes a query, so every query gets
graded and visited once) and prints the process's resident memory (``/proc/self/statm``) every
``--every`` keys, with the number of per-query views loaded. Before, every query graded in the
session kept its view (all its candidates' texts) forever: RSS grew by about 5 MB per 1,000 keys
with no plateau. Now the views are an LRU of ``VIEW_CACHE`` and only the grades outlive them.

    python bench/judge_memory.py                      # 6,000 keys on 2,000 queries
    python bench/judge_memory.py --keys 2000 --every 250
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from goldset_tui.judging import VIEW_CACHE, JudgingSession  # noqa: E402
from goldset_tui.ui.app import GoldsetApp  # noqa: E402
from goldset_tui.ui.screens.judge import JudgeScreen  # noqa: E402


class NullWriter:
    def record(self, judgment: object) -> None: ...
    def undo(self, query_id: str, doc_id: str) -> None: ...
    def note(self, query_id: str, doc_id: str, text: str) -> None: ...
    def close(self) -> None: ...


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def make_pool(queries: int, per_query: int, text: int) -> pl.DataFrame:
    n = queries * per_query
    i = pl.int_range(0, n, eager=True)
    return pl.DataFrame({"i": i}).select(
        pl.format("q{}", pl.col("i") // per_query).alias("query_id"),
        pl.format("rotate api key {}", pl.col("i") // per_query).alias("query"),
        pl.format("d{}", pl.col("i")).alias("doc_id"),
        (pl.format("Passage {} ", pl.col("i")) + pl.lit("x" * text)).alias("text"),
    )


async def run(args: argparse.Namespace) -> None:
    pool = make_pool(args.queries, args.per_query, args.text)
    session = JudgingSession(pool, "bench", writer=NullWriter())
    app = GoldsetApp(lambda: JudgeScreen(session, show_guidelines=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        gc.collect()
        print(f"VIEW_CACHE={VIEW_CACHE}; pool {args.queries:,} x {args.per_query} candidates")
        print(f"{'keys':>7} {'RSS MB':>8} {'views':>6} {'judged':>7}")
        print(f"{0:>7} {rss_mb():8.1f} {len(session._views):>6} {session.judged_count:>7}")
        for k in range(1, args.keys + 1):
            await pilot.press("1")
            if k % args.every == 0:
                await pilot.pause()
                gc.collect()
                views = len(session._views)
                print(f"{k:>7,} {rss_mb():8.1f} {views:>6} {session.judged_count:>7,}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--per-query", type=int, default=3)
    parser.add_argument("--text", type=int, default=2000, help="characters per candidate text")
    parser.add_argument("--keys", type=int, default=6000)
    parser.add_argument("--every", type=int, default=500)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
