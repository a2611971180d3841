"""How much does a megabyte document cost where a labeller waits?

Two moments, each timed as CPU (other work on the machine moves it little) and reported as
median / max over ``--repeat`` runs:

- near-duplicate detection (``neardup.groups``) over one query holding a 1.2 MB text, the same text
  with a word added, and a short one: above ``SAMPLE_ABOVE_WORDS`` words only one shingle in
  ``SAMPLE_MOD`` is kept, shingled and hashed in Polars; timed as the whole process's CPU
  (``time.process_time``: Polars' threads included), and as this thread's alone (the time it
  holds the interpreter, which a key waits for when the next query is loaded ahead);
- the judging screen moving onto a 1 MB candidate (``j``) and off it again (``k``) under Textual's
  Pilot, each key from the key to the next refresh, timed as this thread's CPU
  (``time.thread_time``); each key is one moment of its own, as the goal is per key;
- on a 120 KB candidate of prose (paragraphs, the query's terms in it): landing on it (``j``),
  ``m`` (more of it) twice, and ``end`` (its last line), each from the key to the next refresh.
  The goal is at most 20 ms of CPU for each, whatever the length.

The suite checks the behaviour behind both (the shingle sample's size, the page's length); the
seconds live here, where nothing asserts them.

    python bench/big_documents.py
    python bench/big_documents.py --repeat 20
    python bench/big_documents.py --json   # one JSON line on stdout (the lines on stderr)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def neardup_seconds(repeat: int) -> tuple[list[float], list[float]]:
    """(the process's CPU, this thread's CPU) of each run."""
    from goldset_tui.pooling import neardup

    big = " ".join(f"w{i % 5000} v{i}" for i in range(100_000))  # ~1.2 MB
    texts = [big, big + " tail", "short text"]
    process, thread = [], []
    for _ in range(repeat):
        start, start_thread = time.process_time(), time.thread_time()
        neardup.groups(texts)
        process.append(time.process_time() - start)
        thread.append(time.thread_time() - start_thread)
    return process, thread


PROSE_WORDS = (
    "the api key rotation of a service account needs two keys valid at once "
    "deploy revoke client secret vault overlap window schedule audit log"
)


def prose(size: int, variant: int = 0) -> str:
    """About ``size`` characters of paragraphs (60-120 words each) about rotating API keys; each
    ``variant`` in other words (no line of it repeats another variant's)."""
    words = PROSE_WORDS.split()
    words = [f"{w}{variant}" if k % 5 == 0 else w for k, w in enumerate(words)]
    paragraphs, total, i = [], 0, 0
    while total < size:
        n = 60 + (i * 37) % 61
        para = " ".join(
            words[(i + k * 7) % len(words)] + ("," if k % 13 == 12 else "") for k in range(n)
        )
        paragraphs.append(para.capitalize() + ".")
        total += len(para) + 3
        i += 1
    return "\n\n".join(paragraphs)[:size]


async def screen_seconds(repeat: int) -> dict[str, list[float]]:
    import polars as pl

    from goldset_tui.judging import JudgingSession
    from goldset_tui.ui.app import GoldsetApp
    from goldset_tui.ui.screens.judge import JudgeScreen

    sys.path.insert(0, str(ROOT / "tests" / "ui"))
    from test_judge_support import MemoryWriter

    big = ("api key rotation " * 70_000)[:1_048_576]
    rows = [
        {"query_id": "q0000", "doc_id": "d1", "text": "plain"},
        {"query_id": "q0000", "doc_id": "big", "text": big},
    ]
    # A text of its own for each round: a text seen before has its rows counted already.
    for i in range(1, repeat + 1):
        rows.append({"query_id": f"q{i:04d}", "doc_id": f"short{i}", "text": "plain again"})
        rows.append({"query_id": f"q{i:04d}", "doc_id": f"prose{i}", "text": prose(120_000, i)})
    pool = pl.DataFrame(
        [{**row, "query": "rotate api key", "title": row["doc_id"]} for row in rows]
    )
    session = JudgingSession(pool, "bench", writer=MemoryWriter())
    screen = JudgeScreen(session, show_guidelines=False)
    app = GoldsetApp(lambda: screen)
    out: dict[str, list[float]] = {
        "j onto a short text": [],
        "j onto 1 MB text": [],
        "k off it": [],
        "j onto 120 KB prose": [],
        "m on it": [],
        "m again": [],
        "end: its last line": [],
    }

    async def timed(name: str | None, key: str) -> float:
        start = time.thread_time()
        await pilot.press(key)
        await pilot.pause()
        spent = time.thread_time() - start
        if name is not None:
            out[name].append(spent)
        return spent

    async def onto(query_id: str, doc_id: str, name: str | None) -> float:
        """From the other candidate of its query onto ``doc_id``, the key timed."""
        while session.current.query_id != query_id:
            await timed(None, "n" if session.current.query_id < query_id else "p")
        if session.current.doc_id == doc_id:
            await timed(None, "j" if session.pos == 0 else "k")
        spent = await timed(name, "j" if session.pos == 0 else "k")
        assert session.current.doc_id == doc_id, session.current.doc_id
        return spent

    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for i in range(1, repeat + 1):
            await onto("q0000", "d1", "j onto a short text")
            await onto("q0000", "big", "j onto 1 MB text")  # onto the megabyte
            await timed("k off it", "k" if session.pos else "j")  # and off it
            await onto(f"q{i:04d}", f"prose{i}", "j onto 120 KB prose")
            await timed("m on it", "m")
            await timed("m again", "m")
            await timed("end: its last line", "end")
    return out


def line(name: str, seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    return f"{name:<44} median {statistics.median(ms):8.1f} ms   max {max(ms):8.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON line of the headline figures on stdout (the lines go to stderr)",
    )
    args = parser.parse_args()
    out = sys.stderr if args.json else sys.stdout
    load_before = os.getloadavg()
    print(f"load average {load_before[0]:.2f}; CPU of this thread, {args.repeat} runs", file=out)
    neardup, neardup_thread = neardup_seconds(args.repeat)
    print(line("neardup.groups, 1.2 MB text (x2) + short", neardup), file=out)
    print(line("neardup.groups, this thread alone", neardup_thread), file=out)
    screen = asyncio.run(screen_seconds(args.repeat))
    for name, seconds in screen.items():
        print(line(f"judging screen: {name}", seconds), file=out)
    if args.json:

        def ms(seconds: list[float]) -> dict[str, float]:
            return {
                "p50_ms": round(statistics.median(seconds) * 1e3, 2),
                "max_ms": round(max(seconds) * 1e3, 2),
            }

        figures = {
            "bench": "big_documents",
            "repeat": args.repeat,
            "load": [round(x, 2) for x in (*load_before, *os.getloadavg())],
            "land_short_cpu": ms(screen["j onto a short text"]),
            "land_120kb_cpu": ms(screen["j onto 120 KB prose"]),
            "more_120kb_cpu": ms(screen["m on it"]),
            "more_again_120kb_cpu": ms(screen["m again"]),
            "end_120kb_cpu": ms(screen["end: its last line"]),
            "onto_1mb_cpu": ms(screen["j onto 1 MB text"]),
            "off_1mb_cpu": ms(screen["k off it"]),
            "neardup_1mb_cpu": ms(neardup),
            "neardup_1mb_thread_cpu": ms(neardup_thread),
        }
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
