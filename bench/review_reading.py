"""How fast does the review's top k view answer when it reads from large runs and a large corpus?

The top k view now reads, per query, each system's full ranking (ties, and where each relevant
document sits outside every top k; the fused run rebuilt for that query), and per highlighted
document its text from the corpus. Both are filters over whole frames. This script builds two
runs of ``--queries`` x ``--depth`` rows, a corpus of ``--docs`` documents and qrels with one
relevant document per query outside the top 10, opens the review under Textual's Pilot at 80x24
and times, with ``time.thread_time`` (the UI thread's CPU, not wall), the handler of ``n`` (the
next failing query: the view refilled) and of ``down`` (the next document: notes and text).
Reported: median, p99 and max in ms.

    python bench/review_reading.py                       # 2,000 x 1,000, 200,000 docs
    python bench/review_reading.py --queries 200 --presses 50    # quick look
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def frames(queries: int, depth: int, docs: int):
    qid = pl.int_range(0, queries * depth, eager=True) // depth
    rank = pl.int_range(0, queries * depth, eager=True) % depth + 1
    runs = {}
    for name, shift in (("lex", 0), ("vec", 7)):
        doc = (qid * 131 + rank * 17 + shift) % docs
        runs[name] = pl.DataFrame(
            {
                "query_id": "q" + qid.cast(pl.Utf8),
                "doc_id": "d" + doc.cast(pl.Utf8),
                "score": (depth - rank).cast(pl.Float64),
                "rank": rank.cast(pl.Int64),
            }
        )
    ids = [f"q{i}" for i in range(queries)]
    # One relevant document per query, at rank 50 of lex: every query fails at 10.
    lex = runs["lex"]
    qrels = lex.filter(pl.col("rank") == 50).select("query_id", "doc_id", grade=pl.lit(1))
    strata = pl.DataFrame({"query_id": ids, "stratum": ["s"] * queries})
    words = "retrieval evaluation needs judged documents and honest intervals " * 5
    corpus = pl.DataFrame(
        {
            "doc_id": [f"d{i}" for i in range(docs)],
            "title": [f"doc {i}" for i in range(docs)],
            "text": [words] * docs,
        }
    )
    topics = pl.DataFrame({"query_id": ids, "query": ["judged documents"] * queries})
    return runs, qrels, strata, corpus, topics


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=2000)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--docs", type=int, default=200_000)
    ap.add_argument("--presses", type=int, default=200)
    args = ap.parse_args()

    from goldset_tui.report.pipeline import compute_report
    from goldset_tui.ui.app import GoldsetApp
    from goldset_tui.ui.review_context import ReviewContext
    from goldset_tui.ui.screens.report import ReportScreen
    from goldset_tui.ui.widgets.report_drill import TopKScreen

    runs, qrels, strata, corpus, topics = frames(args.queries, args.depth, args.docs)
    t = time.perf_counter()
    report = compute_report(qrels, runs, strata, metric="Success@10", samples=200)
    print(f"report: {time.perf_counter() - t:.1f} s ({args.queries} queries x {args.depth})")
    context = ReviewContext(report, topics=topics, corpus=corpus)

    timings: dict[str, list[float]] = {"n": [], "down": []}

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("right", "right", "end", "enter", "enter")
            await pilot.pause()
            top = app.screen
            assert isinstance(top, TopKScreen)
            for i in range(args.presses):
                key = "n" if i % 2 == 0 else "down"
                method = top.action_step if key == "n" else None
                start = time.thread_time()
                if method is not None:
                    method(1)
                else:
                    top.query_one("DataTable").action_cursor_down()
                    top._show_notes()
                timings[key].append((time.thread_time() - start) * 1000)
                await pilot.pause()

    asyncio.run(drive())
    for key, values in timings.items():
        values.sort()
        p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
        print(
            f"{key:>5}: median {statistics.median(values):.1f} ms · p99 {p99:.1f} ms · "
            f"max {values[-1]:.1f} ms ({len(values)} presses)"
        )


if __name__ == "__main__":
    main()
