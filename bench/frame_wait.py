"""How long does a judging key wait for Textual's frame timer, at each frame-rate cap?

Textual draws a changed screen on a timer, at most ``TEXTUAL_FPS`` times a second, read when
Textual is imported (goldset sets 240: goldset_tui/ui). When a key's redraw is asked for less than
one period after the previous tick, it waits for the next one. This script measures that wait
alone, in-process (headless Pilot, 20,000-row pool, real store), one fresh interpreter per cap:
for each key, from the moment the screen asked for its redraw to the timer's next grid point. The
figure is the timer's own, not the machine's run queue, so it holds on a loaded machine where
wall-clock tails (``bench/judge_keys.py``) do not. Beside it, wall clock from the key to the tick
that drew the new candidate (which the load does move).

    python bench/frame_wait.py                    # caps 60 240 1000, 1,000 keys each
    python bench/frame_wait.py --fps 60 240 --presses 300
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


async def one_run(presses: int, think: float) -> None:
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "bench"))
    import polars as pl
    import textual.screen as tscreen
    from judge_keys import make_pool
    from textual import constants, events
    from textual.timer import Timer

    import goldset_tui.ui  # noqa: F401  (the cap, unless TEXTUAL_FPS is set: it is, here)
    from goldset_tui.judging import JudgingSession
    from goldset_tui.store import Project, sha256_file
    from goldset_tui.ui.app import GoldsetApp
    from goldset_tui.ui.screens.judge import JudgeScreen

    tmp = Path(tempfile.mkdtemp(prefix="goldset-frame-"))
    pool = tmp / "pool.parquet"
    make_pool(pool, 500, 40)
    project = Project.create(tmp / "store", pool_path=pool, pool_sha256=sha256_file(pool))
    writer = project.writer("bench")
    session = JudgingSession(pl.read_parquet(pool), "bench", writer=writer, scale=project.scale)
    screen = JudgeScreen(session, show_guidelines=False, writer=writer, background=True)
    app = GoldsetApp(lambda: screen)
    period = 1 / constants.MAX_FPS
    resumes: list[float] = []
    ticks: list[float] = []
    drawn: list[float] = []
    waits: list[float] = []
    real_resume, real_tick = Timer.resume, tscreen.Screen._on_timer_update

    def resume(self: Timer) -> None:
        if self.name == "screen_update" and not self._active.is_set():
            resumes.append(time.perf_counter())  # the screen asks for a redraw
        real_resume(self)

    def tick(self: tscreen.Screen) -> None:
        now = time.perf_counter()
        if self is screen:
            candidate = self.query_one("#candidate")
            due = candidate in self._dirty_widgets or self._layout_required
            if due and not drawn and resumes and ticks:
                asked = resumes[-1]
                before = [t for t in ticks if t < asked]
                if before:  # the grid point after the previous tick, if it was still ahead
                    waits.append(max(0.0, before[-1] + period - asked))
            ticks.append(now)
            real_tick(self)
            if due:
                drawn.append(time.perf_counter())
        else:
            real_tick(self)

    Timer.resume = resume  # type: ignore[method-assign]
    tscreen.Screen._on_timer_update = tick  # type: ignore[method-assign]
    wall: list[float] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause(0.2)
        for i in range(presses):
            shown = session.current.doc_id
            drawn.clear()
            start = time.perf_counter()
            key = "0123"[i % 4]
            app._driver.send_message(events.Key(key, key))  # type: ignore[union-attr]
            while not drawn or session.current.doc_id == shown:
                await asyncio.sleep(0.0005)
            wall.append(drawn[0] - start)
            await asyncio.sleep(think)
        screen.flush()  # while the app runs: the last save's "saved" is drawn on it
    w, k = sorted(waits), sorted(wall)
    p99 = lambda xs: xs[min(len(xs) - 1, round(0.99 * (len(xs) - 1)))]  # noqa: E731
    waited = sum(x > 0.001 for x in w)
    print(
        f"{constants.MAX_FPS:>6}{len(w):>7}{waited:>9}{1e3 * p99(w):>9.2f}{1e3 * w[-1]:>9.2f}"
        f"{1e3 * statistics.median(k):>12.2f}{1e3 * p99(k):>9.2f}{os.getloadavg()[0]:>7.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--fps", type=int, nargs="+", default=[60, 240, 1000])
    parser.add_argument("--presses", type=int, default=1000)
    parser.add_argument("--think", type=float, default=50.0, metavar="MS")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        asyncio.run(one_run(args.presses, args.think / 1000))
        return
    print(
        f"judging keys in-process, {args.presses:,} each, {args.think:g} ms apart; timer wait and"
        " wall clock in ms\n"
        f"{'cap':>6}{'keys':>7}{'waited':>9}{'wait p99':>9}{'max':>9}{'wall median':>12}{'p99':>9}"
        f"{'load':>7}"
    )
    for fps in args.fps:
        env = dict(os.environ, TEXTUAL_FPS=str(fps))
        argv = [sys.executable, __file__, "--child", "--presses", str(args.presses)]
        subprocess.run([*argv, "--think", str(args.think)], env=env, check=True)


if __name__ == "__main__":
    main()
