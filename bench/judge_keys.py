"""How fast does the judging screen answer a grade key on a big pool?

Drives the real judging screen (real store, real fsync) through Textual's Pilot on a pool of
1,000,000 rows (25,000 queries x 40 candidates) and presses a grade key 2,000 times. For each press
it measures, from the moment the key is sent:

- to durable save: ``JudgmentWriter.record`` has returned (the journal line is fsynced);
- to the next candidate on screen: the screen has been redrawn showing the next candidate's id;

and the screen's own share: the grade action from start to end (save, move, widgets updated).

Beside them, the same store's ``record`` alone (no UI) is the floor the UI adds to; and the
one-off costs (reading and validating the pool, indexing it for judging) are reported too.

    .venv/bin/python bench/judge_keys.py                          # the full run (a few minutes)
    .venv/bin/python bench/judge_keys.py --queries 500 --presses 200   # quick look
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from goldset_tui.io.pools import load_pool  # noqa: E402
from goldset_tui.judging import JudgingSession  # noqa: E402
from goldset_tui.model import Judgment  # noqa: E402
from goldset_tui.store import Project, now_iso  # noqa: E402


def make_pool(path: Path, queries: int, per_query: int) -> None:
    n = queries * per_query
    idx = pl.col("i")
    q = idx // per_query
    frame = pl.DataFrame({"i": pl.int_range(0, n, eager=True)}).select(
        pl.format("q{}", q).alias("query_id"),
        pl.format("how do i rotate api key number {}", q).alias("query"),
        pl.format("d{}-{}", q, idx % per_query).alias("doc_id"),
        pl.format("Document {}", idx).alias("title"),
        pl.format(
            "Passage {} about keys. To rotate an API key create a second key, deploy it, then revoke "
            "the first one; both stay valid during the overlap so clients never fail. Ref {}.",
            idx,
            idx * 7919 % 1_000_003,
        ).alias("text"),
    )
    frame.write_parquet(path)


def quantiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return statistics.median(ordered), p99


class TimedWriter:
    """The real writer, with the moment each durable save returned."""

    def __init__(self, writer) -> None:  # noqa: ANN001
        self.writer = writer
        self.saved_at: list[float] = []

    def record(self, judgment: Judgment) -> object:
        out = self.writer.record(judgment)
        self.saved_at.append(time.perf_counter())
        return out

    def undo(self, query_id: str, doc_id: str) -> object:
        return self.writer.undo(query_id, doc_id)

    def note(self, query_id: str, doc_id: str, text: str) -> object:
        return self.writer.note(query_id, doc_id, text)

    def close(self) -> object:
        return self.writer.close()


async def drive(
    session: JudgingSession, timed: TimedWriter, presses: int
) -> tuple[list[float], list[float]]:
    from goldset_tui.ui.app import GoldsetApp
    from goldset_tui.ui.screens.judge import JudgeScreen

    screen = JudgeScreen(session, show_guidelines=False)
    app = GoldsetApp(lambda: screen)
    to_save: list[float] = []
    to_screen: list[float] = []
    in_app: list[float] = []
    grade_action = screen.action_grade

    def timed_grade(grade: int) -> None:
        # The screen's own work for a key: save, move, update the widgets in place.
        t = time.perf_counter()
        grade_action(grade)
        in_app.append(time.perf_counter() - t)

    screen.action_grade = timed_grade
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        candidate = screen.query_one("#candidate")
        for i in range(presses):
            t0 = time.perf_counter()
            await pilot.press("0123"[i % 4])
            expected = session.current.doc_id
            # Until the compositor has drawn the next candidate's id.
            while expected not in str(candidate.render()):
                await pilot.pause()
            await pilot.pause()
            t1 = time.perf_counter()
            to_save.append(timed.saved_at[-1] - t0)
            to_screen.append(t1 - t0)
        await pilot.press("q")
    return to_save, to_screen, in_app


async def harness_floor(presses: int) -> list[float]:
    """The same press-and-wait-for-screen loop on an app that only echoes the key: what Pilot
    itself costs, so the judging screen's own share is the difference."""
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class Echo(App):
        def compose(self) -> ComposeResult:
            yield Static("-", id="echo")

        def on_key(self, event) -> None:  # noqa: ANN001
            self.query_one("#echo", Static).update(f"{event.key} {self.count}")
            self.count += 1

    app = Echo()
    app.count = 0
    out = []
    async with app.run_test(size=(80, 24)) as pilot:
        echo = app.query_one("#echo")
        for i in range(presses):
            t0 = time.perf_counter()
            await pilot.press("0123"[i % 4])
            while f" {i}" not in str(echo.render()):
                await pilot.pause()
            await pilot.pause()
            out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=25_000)
    parser.add_argument("--per-query", type=int, default=40)
    parser.add_argument("--presses", type=int, default=2_000)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="goldset-bench-") as tmp:
        pool_path = Path(tmp) / "pool.parquet"
        make_pool(pool_path, args.queries, args.per_query)

        t = time.perf_counter()
        pool = load_pool(pool_path)
        load_s = time.perf_counter() - t

        project = Project.create(Path(tmp) / "store", pool_path=pool_path, pool_sha256=pool.sha256)

        # The floor: the store's durable save alone, no UI.
        with project.writer("floor") as writer:
            floor = []
            for i in range(min(args.presses, 500)):
                t = time.perf_counter()
                writer.record(Judgment("floor", f"q{i}", f"d{i}-0", i % 4, now_iso()))
                floor.append(time.perf_counter() - t)

        timed = TimedWriter(project.writer("alice"))
        t = time.perf_counter()
        session = JudgingSession(
            pool.frame,
            "alice",
            writer=timed,
            judged=project.judgments("alice"),
            scale=project.scale,
        )
        index_s = time.perf_counter() - t

        to_save, to_screen, in_app = asyncio.run(drive(session, timed, args.presses))
        floor_ui = asyncio.run(harness_floor(min(args.presses, 500)))
        saved = project.qrels("alice").height

    rows = pool.frame.height
    print(
        f"pool: {rows:,} rows ({args.queries:,} queries x {args.per_query}),"
        f" {args.presses:,} grade keypresses, terminal 80x24"
    )
    print(
        f"read + validate pool (load_pool): {load_s:.2f} s    index for judging (JudgingSession): {index_s:.2f} s"
    )
    print()
    print(f"{'measure':<44}{'median ms':>11}{'p99 ms':>10}")
    for name, values in [
        ("durable save alone (JudgmentWriter.record)", floor),
        ("grade action in the app (save, move, update)", in_app),
        ("keypress -> durable save", to_save),
        ("keypress -> next candidate on screen", to_screen),
        ("Pilot harness alone (echo app, same loop)", floor_ui),
    ]:
        median, p99 = quantiles(values)
        print(f"{name:<44}{median * 1000:>11.2f}{p99 * 1000:>10.2f}")
    print()
    print(f"judgments in the store afterwards: {saved:,} (expected {args.presses:,})")
    assert saved == args.presses


if __name__ == "__main__":
    main()
