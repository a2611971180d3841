"""What one browser labeller costs the machine, next to one terminal labeller.

Side by side, on the same pool (the sample pool by default: 42 queries, 1,285 candidates):

- web: a real `goldset serve` on a free loopback port; a websocket opened as the browser would
  (page with a token, then ``ws/<ticket>``), timed until the judging screen's first frame with
  "Guidelines" arrives; then the judging process's CPU time (user + system, from /proc) and peak
  RSS (VmHWM) at that moment, and the server's own.
- terminal: `goldset judge` on a pseudo-terminal, timed until "Guidelines" is drawn; its CPU and
  peak RSS read the same way.
- the login check: one scrypt token check (``labeller_for``), median of --checks calls.

CPU time and peak memory are the numbers: the machine is shared, so wall times are noisy.
No browser is needed (the websocket speaks textual-serve's protocol directly).

    python bench/serve_cost.py --repeat 3
    python bench/serve_cost.py --repeat 3 --json   # one JSON line on stdout (the table on stderr)

Needs the serve extra (aiohttp comes with textual-serve): without it, one line and exit 2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pty
import re
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _needs import require  # bench/ is sys.path[0] when a script runs

require("aiohttp", "textual_serve")  # the serve extra: before the imports below

import aiohttp  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from goldset_tui.serve.users import add_labeller, labeller_for, read_labellers  # noqa: E402

POOL = Path(__file__).resolve().parents[1] / "goldset_tui" / "sample" / "pool.jsonl"
TICKS = os.sysconf("SC_CLK_TCK")


def usage(pid: int) -> tuple[float, float]:
    """(CPU seconds, peak RSS in MB) of a live process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICKS
    status = Path(f"/proc/{pid}/status").read_text()
    peak = int(re.search(r"VmHWM:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]
    return cpu, peak


def children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def web_once(folder: Path, env: dict[str, str]) -> dict[str, float]:
    users = folder / "team.toml"
    token = add_labeller(users, "ana")
    log = folder / "server.log"
    argv = [sys.executable, "-m", "goldset_tui", "serve", str(POOL), "--store"]
    argv += [str(folder / "store"), "--users", str(users), "--port", "0"]
    with log.open("wb") as err:
        server = subprocess.Popen(argv, stderr=err, stdout=subprocess.DEVNULL, env=env)
    try:
        url = None
        while url is None:
            found = re.search(r"labellers open (http://\S+/)\?", log.read_text())
            url = found.group(1) if found else time.sleep(0.05)

        async def session() -> dict[str, float]:
            # As a browser: the link's token is checked once and answered with the session's
            # cookie and a page that goes to the same address without it, which holds the
            # ticket (a loopback address needs the unsafe jar: aiohttp keeps no cookie of an IP).
            async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
                await (await http.get(url, params={"token": token})).text()
                page = await (await http.get(url)).text()
                ticket = re.search(r'new URL\("ws/([\w-]+)"', page).group(1)  # type: ignore[union-attr]
                start = time.perf_counter()
                ws = await http.ws_connect(f"{url}ws/{ticket}?width=100&height=30")
                seen = ""
                async for message in ws:
                    if message.type == aiohttp.WSMsgType.BINARY:
                        seen += message.data.decode("utf-8", "replace")
                        if "Guidelines" in seen:
                            break
                wall = time.perf_counter() - start
                (child,) = children(server.pid)
                cpu, peak = usage(child)
                server_cpu, server_peak = usage(server.pid)
                await ws.close()
                return {
                    "wall": wall,
                    "cpu": cpu,
                    "peak": peak,
                    "server_cpu": server_cpu,
                    "server_peak": server_peak,
                }

        return asyncio.run(session())
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)


def terminal_once(folder: Path, env: dict[str, str]) -> dict[str, float]:
    argv = [sys.executable, "-m", "goldset_tui", "judge", str(POOL), "--labeller", "ana"]
    argv += ["--store", str(folder / "store")]
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update(env, COLUMNS="100", LINES="30", TERM="xterm-256color")
        os.execv(argv[0], argv)
    start = time.perf_counter()
    seen = b""
    try:
        while b"Guidelines" not in seen:
            ready, _, _ = select.select([fd], [], [], 60)
            if not ready:
                raise RuntimeError("goldset judge drew nothing in 60 s")
            seen += os.read(fd, 65536)
        wall = time.perf_counter() - start
        cpu, peak = usage(pid)
    finally:
        os.kill(pid, signal.SIGHUP)
        os.waitpid(pid, 0)
        os.close(fd)
    return {"wall": wall, "cpu": cpu, "peak": peak}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--checks", type=int, default=20)
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON line of the headline figures on stdout (the table goes to stderr)",
    )
    args = parser.parse_args()
    out = sys.stderr if args.json else sys.stdout
    load_before = os.getloadavg()
    runs: dict[str, list[dict[str, float]]] = {"web": [], "terminal": []}
    for i in range(args.repeat):
        for kind, once in (("terminal", terminal_once), ("web", web_once)):
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                env = {
                    **os.environ,
                    "GOLDSET_DATA_DIR": str(folder / "data"),
                    "GOLDSET_CONFIG_DIR": str(folder / "config"),
                }
                runs[kind].append(once(folder, env))
        print(f"run {i + 1}/{args.repeat} done", file=sys.stderr)

    def med(kind: str, key: str) -> float:
        return statistics.median(r[key] for r in runs[kind])

    print(f"pool: {POOL.name}; medians of {args.repeat} fresh processes each", file=out)
    print("| judging screen | to first frame, wall s | CPU s | peak RSS MB |", file=out)
    print("|---|---|---|---|", file=out)
    for kind in ("terminal", "web"):
        row = f"| {kind} | {med(kind, 'wall'):.2f} | {med(kind, 'cpu'):.2f} |"
        print(f"{row} {med(kind, 'peak'):.0f} |", file=out)
    ratio_wall = med("web", "wall") / med("terminal", "wall")
    ratio_cpu = med("web", "cpu") / med("terminal", "cpu")
    ratio_peak = med("web", "peak") / med("terminal", "peak")
    print(
        f"web / terminal: first frame {ratio_wall:.2f}x, CPU {ratio_cpu:.2f}x,"
        f" peak RSS {ratio_peak:.2f}x",
        file=out,
    )
    print(
        f"server process (once, with its one session): CPU {med('web', 'server_cpu'):.2f} s,"
        f" peak RSS {med('web', 'server_peak'):.0f} MB",
        file=out,
    )
    with tempfile.TemporaryDirectory() as tmp:
        users = Path(tmp) / "team.toml"
        token = add_labeller(users, "ana")
        known = read_labellers(users)
        times = []
        for _ in range(args.checks):
            start = time.process_time()
            assert labeller_for(known, token) == "ana"
            times.append(time.process_time() - start)
    check_ms = statistics.median(times) * 1000
    print(f"token check (scrypt N=2^14, r=8): median {check_ms:.1f} ms CPU", file=out)
    if args.json:
        figures = {
            "bench": "serve_cost",
            "repeat": args.repeat,
            "load": [round(x, 2) for x in (*load_before, *os.getloadavg())],
            "first_frame_s": round(med("web", "wall"), 3),
            "cpu_s": round(med("web", "cpu"), 3),
            "peak_rss_mb": round(med("web", "peak"), 1),
            "server_cpu_s": round(med("web", "server_cpu"), 3),
            "server_peak_rss_mb": round(med("web", "server_peak"), 1),
            "token_check_ms": round(check_ms, 2),
            "reference": {
                "name": "goldset judge on a pty",
                "first_frame_s": round(med("terminal", "wall"), 3),
                "cpu_s": round(med("terminal", "cpu"), 3),
                "peak_rss_mb": round(med("terminal", "peak"), 1),
            },
            "ratio": {"first_frame": round(ratio_wall, 3), "cpu": round(ratio_cpu, 3)},
        }
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
