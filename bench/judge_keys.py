"""How fast does the judging screen answer a grade key on a big pool, in a real terminal?

The real ``goldset judge`` runs on a pseudo-terminal of 80x24 (``pty.fork``; TERM=xterm-256color)
on a pool of 1,000,000 rows (25,000 queries x 40 candidates), with a real store (every grade
fsynced before the screen says saved). This script plays the labeller: it sends a grade key and
times until the bytes of the *next* candidate (its id, in the candidate line) arrive from the
terminal; then the next key. About one key in 40 finishes a query, so moving to the next query is
inside the numbers. Between keys it waits ``--think`` ms (50) as a reader would: Textual draws at
most ``TEXTUAL_FPS`` frames a second (goldset sets 240, goldset_tui/ui; ``--fps`` gives the child
another), so a key sent the instant a frame arrived could wait for the next frame tick and the
script would measure the frame rate. Reported: median, p99 and max, with the machine's load
average before and after (the machine is shared: wall-clock tails move with other people's work),
the child's CPU per key from the first key to the last (``/proc``, all its threads), which moves
much less, and its CPU while nobody types (``--idle`` seconds after the last key).

The repeatable CPU-side figure is measured in-process (``--no-in-process`` skips it): the same
screen under Textual's Pilot, timing with ``time.thread_time`` (CPU of the UI thread, not wall)
the grade key's handler up to the next refresh (save, move, widgets updated and laid out),
median/p99/max, and the same for the key that changes query, apart.

    python bench/judge_keys.py                                # the full run
    python bench/judge_keys.py --queries 2500 --presses 400    # quick look
    python bench/judge_keys.py --think 0    # keys back to back (a held-down key)
    python bench/judge_keys.py --presses 1000 --no-in-process --fps 60   # Textual's default
    python bench/judge_keys.py --presses 1000 --no-in-process --reference --json

``--reference`` runs, after goldset and on the same pty and pool, the least a Textual app can do
to answer the key (``bench/_minimal_judge.py``: a row read and four lines redrawn, no store), and
prints its figures beside; the goal is a CPU per key of at most twice its. ``--json`` prints one
JSON line of the headline figures on stdout (the table goes to stderr), for ``speed_table.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import json
import os
import pty
import re
import select
import statistics
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DOC_ID = re.compile(r"\bd(\d+)-(\d+)\b")
ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|.)")


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


def summary(values: list[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return statistics.median(ordered), p99, ordered[-1]


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


# ----- the real terminal ---------------------------------------------------------------------
class Terminal:
    """``goldset judge`` on a pty: keys in, screen bytes out."""

    def __init__(self, argv: list[str], env: dict[str, str], cols: int = 80, rows: int = 24):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the program, on the pty's slave side
            os.execvpe(argv[0], argv, env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.pending = b""

    def read(self, timeout: float) -> bytes:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return b""
        try:
            return os.read(self.fd, 65536)
        except OSError:  # the child is gone
            return b""

    def wait_for(self, pattern: re.Pattern[str], timeout: float = 120.0) -> str:
        deadline = time.monotonic() + timeout
        seen = b""
        while time.monotonic() < deadline:
            seen += self.read(0.1)
            text = ANSI.sub("", seen.decode("utf-8", "replace"))
            if pattern.search(text):
                return text
        raise TimeoutError(f"no {pattern.pattern!r} on screen; last: {seen[-400:]!r}")

    def settle(self, quiet: float = 0.5) -> None:
        """Read until the screen has been quiet for ``quiet`` seconds."""
        while self.read(quiet):
            pass

    def send(self, keys: bytes) -> None:
        os.write(self.fd, keys)

    def cpu(self) -> float:
        """The child's CPU seconds so far (user + system, all its threads), from /proc."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def finish(self) -> tuple[int, float]:
        """Quit (q), and return the exit status and the child's CPU seconds."""
        self.send(b"q")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            self.read(0.1)  # keep draining, or the child blocks writing its last frame
            pid, status, usage = os.wait4(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime
        raise TimeoutError("goldset judge did not quit")


def current_doc(text: str) -> str | None:
    found = DOC_ID.findall(text)
    return f"d{found[-1][0]}-{found[-1][1]}" if found else None


def in_terminal(
    pool: Path,
    store: Path,
    presses: int,
    think: float,
    fps: int | None,
    idle: float,
    *,
    reference: bool = False,
) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k not in {"COLUMNS", "LINES", "COLORTERM"}}
    env["TERM"] = "xterm-256color"
    if fps is not None:
        env["TEXTUAL_FPS"] = str(fps)
    # This checkout's goldset (not whatever `goldset` is installed), so two checkouts compare.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    if reference:  # the minimal app, at the frame rate goldset gives itself
        from goldset_tui.ui import FRAME_RATE

        env.setdefault("TEXTUAL_FPS", str(FRAME_RATE))
        argv = [sys.executable, str(ROOT / "bench" / "_minimal_judge.py"), str(pool)]
    else:
        argv = [sys.executable, "-m", "goldset_tui", "judge", str(pool), "--labeller", "bench"]
        argv += ["--store", str(store)]
    term = Terminal(argv, env)
    opened = time.perf_counter()
    term.wait_for(re.compile("Guidelines"))
    open_s = time.perf_counter() - opened
    term.send(b"\x1b")  # close the guidelines of a first open
    screen = term.wait_for(DOC_ID)
    term.settle()
    shown = current_doc(screen)
    times: list[float] = []
    query_changes: list[float] = []
    load_before = load()
    cpu_before = term.cpu()
    for i in range(presses):
        before = shown
        t0 = time.perf_counter()
        term.send(b"0123"[i % 4 : i % 4 + 1])
        seen = b""
        while True:
            chunk = term.read(10.0)
            if not chunk:
                raise TimeoutError(f"press {i}: no new candidate after {before}")
            seen += chunk
            found = [
                f"d{q}-{d}"
                for q, d in DOC_ID.findall(ANSI.sub("", seen.decode("utf-8", "replace")))
            ]
            new = [doc for doc in found if doc != before]
            if new:
                elapsed = time.perf_counter() - t0
                shown = new[-1]
                break
        times.append(elapsed)
        if before is not None and shown.split("-")[0] != before.split("-")[0]:
            query_changes.append(elapsed)
        # What is still coming for this frame (the status line, the strip) is not the next key's;
        # then the labeller reads a moment (see --think) before the next key.
        pause_until = time.perf_counter() + think
        while term.read(0.002) or time.perf_counter() < pause_until:
            pass
    load_after = load()
    cpu_keys = term.cpu() - cpu_before
    # Nobody typing: what the open screen costs per second (timers, the terminal check).
    term.settle()
    idle_before = term.cpu()
    idle_until = time.monotonic() + idle
    while time.monotonic() < idle_until:
        term.read(0.1)
    idle_ms_per_s = 1000 * (term.cpu() - idle_before) / max(idle, 1e-9)
    status, cpu = term.finish()
    return {
        "times": times,
        "query_changes": query_changes,
        "open_s": open_s,
        "status": status,
        "cpu_per_key_ms": 1000 * cpu_keys / max(1, presses),
        "cpu_session_per_key_ms": 1000 * cpu / max(1, presses),
        "idle_ms_per_s": idle_ms_per_s,
        "load": (load_before, load_after),
    }


# ----- in-process: the CPU the screen spends per key ------------------------------------------
async def cpu_per_key(
    pool_frame: pl.DataFrame, store: Path, presses: int
) -> dict[str, list[float]]:
    from goldset_tui.judging import JudgingSession
    from goldset_tui.store import Project
    from goldset_tui.ui.app import GoldsetApp
    from goldset_tui.ui.screens.judge import JudgeScreen

    project = Project.open(store)
    writer = project.writer("cpu")
    session = JudgingSession(pool_frame, "cpu", writer=writer, scale=project.scale)
    screen = JudgeScreen(session, show_guidelines=False)
    app = GoldsetApp(lambda: screen)
    handler: list[float] = []
    changes: list[float] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for i in range(presses):
            query = session.qi
            done = asyncio.get_running_loop().create_future()
            start = time.thread_time()

            def refreshed(start: float = start, done: asyncio.Future = done) -> None:
                done.set_result(time.thread_time() - start)

            grade = screen.action_grade
            grade(i % 4)  # the key's handler, as the binding calls it
            screen.call_after_refresh(refreshed)  # ... up to the next refresh (layout included)
            spent = await done
            (changes if session.qi != query else handler).append(spent)
            await pilot.pause()
    screen.flush()
    return {"same query": handler, "query change": changes}


def rounds(args: argparse.Namespace) -> None:
    """Several pty runs in a row: the spread of p99 from one run to the next, and when."""
    print(
        f"{args.rounds} rounds of {args.presses:,} grade keys, {args.think:g} ms apart, on "
        f"{args.queries * args.per_query:,} rows; wall clock in ms, key -> next candidate on the pty"
    )
    print(
        f"{'start':>8} {'load before':>17} {'median':>7} {'p99':>7} {'max':>7} {'>20 ms':>7} {'CPU/key':>8}"
    )
    p99s = []
    with tempfile.TemporaryDirectory(prefix="goldset-bench-") as tmp:
        pool = Path(tmp) / "pool.parquet"
        make_pool(pool, args.queries, args.per_query)
        for i in range(args.rounds):
            start = time.strftime("%H:%M:%S", time.gmtime())
            store = Path(tmp) / f"store{i}"
            result = in_terminal(pool, store, args.presses, args.think / 1000, args.fps, args.idle)
            median, p99, top = summary(result["times"])  # type: ignore[arg-type]
            slow = sum(t > 0.020 for t in result["times"])  # type: ignore[union-attr]
            p99s.append(p99 * 1e3)
            print(
                f"{start:>8} {result['load'][0]:>17} {median * 1e3:>7.2f} {p99 * 1e3:>7.2f} "
                f"{top * 1e3:>7.2f} {slow:>7} {result['cpu_per_key_ms']:>8.2f}",
                flush=True,
            )
    met = sum(p <= 20 for p in p99s)
    print(
        f"p99 at most 20 ms in {met} of {len(p99s)} rounds; p99 over the rounds: median "
        f"{statistics.median(p99s):.1f}, min {min(p99s):.1f}, max {max(p99s):.1f} ms (UTC times)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=25_000)
    parser.add_argument("--per-query", type=int, default=40)
    parser.add_argument("--presses", type=int, default=2_000)
    parser.add_argument("--cpu-presses", type=int, default=1_000)
    parser.add_argument(
        "--think",
        type=float,
        default=50.0,
        metavar="MS",
        help="pause after a candidate appears before the next key (default 50 ms; a labeller reads"
        " for seconds). With 0 the keys come back to back, as from a held-down key, and a key sent"
        " right after a frame may wait for the next frame tick (1/TEXTUAL_FPS)",
    )
    parser.add_argument(
        "--fps",
        type=int,
        metavar="N",
        help="TEXTUAL_FPS for the child (default: the program's own choice, see goldset_tui/ui)",
    )
    parser.add_argument(
        "--idle",
        type=float,
        default=5.0,
        metavar="S",
        help="seconds of nobody typing after the keys, to measure the idle CPU (default 5)",
    )
    parser.add_argument("--no-in-process", dest="in_process", action="store_false")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        metavar="N",
        help="run the pty part N times in a row, a fresh store each (no in-process part), and"
        " print one line per round and how many rounds had a p99 of at most 20 ms: one round's"
        " p99 rests on its ten slowest keys, and the machine's slow spells come and go",
    )
    parser.add_argument(
        "--reference",
        action="store_true",
        help="after goldset, the same keys to the minimal Textual app (bench/_minimal_judge.py)"
        " on the same pty and pool, its figures beside",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON line of the headline figures on stdout (the table goes to stderr)",
    )
    args = parser.parse_args()
    if args.rounds > 1:
        rounds(args)
        return
    out = sys.stderr if args.json else sys.stdout

    with tempfile.TemporaryDirectory(prefix="goldset-bench-") as tmp:
        pool = Path(tmp) / "pool.parquet"
        make_pool(pool, args.queries, args.per_query)
        store = Path(tmp) / "store"
        result = in_terminal(pool, store, args.presses, args.think / 1000, args.fps, args.idle)
        from goldset_tui.store import Project

        saved = Project.open(store).qrels("bench").height
        ref = (
            in_terminal(
                pool, store, args.presses, args.think / 1000, args.fps, args.idle, reference=True
            )
            if args.reference
            else None
        )
        cpu = (
            asyncio.run(cpu_per_key(pl.read_parquet(pool), store, args.cpu_presses))
            if args.in_process
            else {}
        )

    rows = args.queries * args.per_query
    print(
        f"pool: {rows:,} rows ({args.queries:,} queries x {args.per_query}); real `goldset judge` "
        f"on an 80x24 pty; {args.presses:,} grade keys, {args.think:g} ms after each candidate",
        file=out,
    )
    fps = args.fps if args.fps is not None else os.environ.get("TEXTUAL_FPS", "program default")
    print(f"frame rate cap (TEXTUAL_FPS): {fps}", file=out)
    print(
        f"load average (1, 5, 15 min) before: {result['load'][0]}   after: {result['load'][1]}",
        file=out,
    )
    print(
        f"open to the first screen (read, validate, index the pool): {result['open_s']:.2f} s",
        file=out,
    )
    print(file=out)
    print(
        f"{'wall clock, key sent -> next candidate on the pty':<52}{'n':>6}{'median':>9}{'p99':>9}{'max':>9}  ms",
        file=out,
    )
    measured = [
        ("every key", result["times"]),
        ("keys that finish a query (next query)", result["query_changes"]),
    ]
    if ref is not None:
        measured.append(("the minimal Textual app (reference), every key", ref["times"]))
    for name, values in measured:
        if values:
            median, p99, top = summary(values)  # type: ignore[arg-type]
            print(
                f"  {name:<50}{len(values):>6}{median * 1e3:>9.2f}{p99 * 1e3:>9.2f}{top * 1e3:>9.2f}",
                file=out,
            )
    print(
        f"  child CPU per key (user+sys, all threads, first key to last): "
        f"{result['cpu_per_key_ms']:.2f} ms (whole session incl. open / keys: "
        f"{result['cpu_session_per_key_ms']:.2f} ms)",
        file=out,
    )
    print(f"  child CPU with nobody typing: {result['idle_ms_per_s']:.2f} ms per second", file=out)
    if ref is not None:
        print(
            f"  the minimal app's CPU per key: {ref['cpu_per_key_ms']:.2f} ms; goldset / minimal "
            f"{result['cpu_per_key_ms'] / ref['cpu_per_key_ms']:.2f}x (load before / after "
            f"{ref['load'][0]} / {ref['load'][1]})",  # type: ignore[index]
            file=out,
        )
    if cpu:
        print(file=out)
        print(
            f"{'CPU of the UI thread, key handler -> next refresh':<52}{'n':>6}{'median':>9}{'p99':>9}{'max':>9}  ms",
            file=out,
        )
        for name, values in cpu.items():
            if values:
                median, p99, top = summary(values)
                print(
                    f"  {name:<50}{len(values):>6}{median * 1e3:>9.2f}{p99 * 1e3:>9.2f}{top * 1e3:>9.2f}",
                    file=out,
                )
    print(file=out)
    print(
        f"judgments in the store afterwards: {saved:,} (expected {args.presses:,}); exit {result['status']}",
        file=out,
    )
    assert saved == args.presses and result["status"] == 0
    if args.json:
        print(json.dumps(headline(args, result, ref, cpu)))


def headline(
    args: argparse.Namespace,
    result: dict[str, object],
    ref: dict[str, object] | None,
    cpu: dict[str, list[float]],
) -> dict[str, object]:
    """The figures speed_table.py reads: ms, from one run."""

    def figures(run: dict[str, object]) -> dict[str, object]:
        median, p99, top = summary(run["times"])  # type: ignore[arg-type]
        return {
            "p50_ms": round(median * 1e3, 2),
            "p99_ms": round(p99 * 1e3, 2),
            "max_ms": round(top * 1e3, 2),
            "cpu_per_key_ms": round(run["cpu_per_key_ms"], 3),  # type: ignore[arg-type]
            "cpu_s": round(run["cpu_per_key_ms"] * args.presses / 1e3, 3),  # type: ignore[operator]
            "idle_ms_per_s": round(run["idle_ms_per_s"], 2),  # type: ignore[arg-type]
            "open_s": round(run["open_s"], 3),  # type: ignore[arg-type]
            # 1, 5 and 15 min load averages before the first key and after the last
            "load_before": [float(x) for x in run["load"][0].split(",")],  # type: ignore[index]
            "load_after": [float(x) for x in run["load"][1].split(",")],  # type: ignore[index]
        }

    out: dict[str, object] = {
        "bench": "judge_keys",
        "rows": args.queries * args.per_query,
        "presses": args.presses,
        "think_ms": args.think,
        **figures(result),
    }
    if result["query_changes"]:
        median, p99, _ = summary(result["query_changes"])  # type: ignore[arg-type]
        out["query_change_p50_ms"] = round(median * 1e3, 2)
        out["query_change_p99_ms"] = round(p99 * 1e3, 2)
    for name, values in cpu.items():
        if values:
            median, p99, _ = summary(values)
            key = name.replace(" ", "_")
            out[f"ui_cpu_{key}_p50_ms"] = round(median * 1e3, 3)
            out[f"ui_cpu_{key}_p99_ms"] = round(p99 * 1e3, 3)
    if ref is not None:
        out["reference"] = {"name": "minimal Textual app (bench/_minimal_judge.py)", **figures(ref)}
        out["ratio_cpu_per_key"] = round(
            result["cpu_per_key_ms"] / ref["cpu_per_key_ms"],  # type: ignore[operator]
            3,
        )
    return out


if __name__ == "__main__":
    main()
