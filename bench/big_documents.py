"""How much does a megabyte document cost where a labeller waits?

Two moments, each timed as CPU of this process's thread (``time.thread_time``, so other work on
the machine moves it little) and reported as median / max over ``--repeat`` runs:

- near-duplicate detection (``neardup.groups``) over one query holding a 1.2 MB text, the same text
  with a word added, and a short one: above ``SAMPLE_ABOVE_WORDS`` words only one shingle in
  ``SAMPLE_MOD`` is kept, and this shows what that bounds;
- the judging screen moving onto and off a 1 MB candidate (``j`` then ``k``) under Textual's Pilot,
  from the key to the next refresh: the screen lays out the first ``TEXT_PAGE`` characters only.

The suite checks the behaviour behind both (the shingle sample's size, the page's length); the
seconds live here, where nothing asserts them.

    python bench/big_documents.py
    python bench/big_documents.py --repeat 20
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def neardup_seconds(repeat: int) -> list[float]:
    from goldset_tui.pooling import neardup

    big = " ".join(f"w{i % 5000} v{i}" for i in range(100_000))  # ~1.2 MB
    texts = [big, big + " tail", "short text"]
    out = []
    for _ in range(repeat):
        start = time.thread_time()
        neardup.groups(texts)
        out.append(time.thread_time() - start)
    return out


async def screen_seconds(repeat: int) -> list[float]:
    import polars as pl

    from goldset_tui.judging import JudgingSession
    from goldset_tui.ui.app import GoldsetApp
    from goldset_tui.ui.screens.judge import JudgeScreen

    sys.path.insert(0, str(ROOT / "tests" / "ui"))
    from test_judge_support import MemoryWriter

    big = ("api key rotation " * 70_000)[:1_048_576]
    base = {"query_id": "q1", "query": "rotate api key"}
    pool = pl.DataFrame(
        [
            {**base, "doc_id": "d1", "title": "short", "text": "plain"},
            {**base, "doc_id": "big", "title": "big", "text": big},
        ]
    )
    session = JudgingSession(pool, "bench", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(session, show_guidelines=False))
    out = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for _ in range(repeat):
            start = time.thread_time()
            await pilot.press("j")  # onto the megabyte
            await pilot.pause()
            await pilot.press("k")  # and off it
            await pilot.pause()
            out.append(time.thread_time() - start)
    return out


def line(name: str, seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    return f"{name:<44} median {statistics.median(ms):8.1f} ms   max {max(ms):8.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; CPU of this thread, {args.repeat} runs")
    print(line("neardup.groups, 1.2 MB text (x2) + short", neardup_seconds(args.repeat)))
    print(
        line("judging screen: j onto 1 MB text, k off it", asyncio.run(screen_seconds(args.repeat)))
    )


if __name__ == "__main__":
    main()
