"""What a flood of wrong tokens costs `goldset serve`, and whether a real labeller still gets in.

Side by side in one process, against the real server over loopback HTTP (aiohttp's test server):

- unbounded: the login as it was (no limit per address; token checks two at a time behind a
  queue without end), emulated with the same server given limits too large to bind;
- limited: the login as it is (10 wrong tokens per address at once, then one every 6 s, and 2
  checks under way per address: 429; 2 checks running and 8 waiting in all, the rest 503 at once).

Scenario: FLOOD wrong tokens are sent at once from one address (``X-Forwarded-For``, with
``--behind-proxy`` as behind a reverse proxy); while they are in flight, a labeller with a right
token logs in from another address. Reported: how many scrypt checks ran, the CPU time this
process spent (user + system of every thread, from getrusage: the machine is shared, so wall
times are noisy), the answers the flood got, and the labeller's wait for their answer (wall).

Then the flood from many addresses (``--addresses``, Linux only: all of 127.0.0.0/8 reaches the
loopback interface, so a client socket bound to 127.2.x.y really comes from there): every address
sends wrong tokens without pause, two at a time, for as long as the labeller tries, and the
labeller opens their link once a second (at most 8 tries) until they get in. Three floods: made-up
ids; the id of a link the flooder has seen (another labeller's, with wrong secrets); and that
labeller's own id, the one flood that can still hold one labeller out (docs/serve.md).
Reported: the labeller's tries, their answers, and the time from the first try to getting in
(``--repeat`` runs of each flood: the median and the slowest).

Every scenario runs twice: with USERS.toml as `--add-user` writes it now (each entry has a quick
``check`` that refuses a wrong token for a known id before any scrypt work), and with the checks
taken out, as in a file written before them (every wrong token for a known id is checked with
scrypt, within the per-id shares). The load average is printed beside (the machine is shared).

    python bench/serve_login_flood.py --flood 200 --addresses 60 --repeat 5
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import secrets
import statistics
import sys
import tempfile
import time
import tomllib
from collections import Counter
from pathlib import Path

from _needs import require  # bench/ is sys.path[0] when a script runs

require("aiohttp", "textual_serve")  # the serve extra: before the imports below

from aiohttp.test_utils import TestClient, TestServer  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from goldset_tui.serve import login  # noqa: E402
from goldset_tui.serve.server import JudgingServer  # noqa: E402
from goldset_tui.serve.users import add_labeller, labeller_for  # noqa: E402


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def scenario(limited: bool, flood: int, users: Path, token: str) -> dict[str, object]:
    checks = [0]

    def counted(labellers, given):
        checks[0] += 1
        return labeller_for(labellers, given)

    server = JudgingServer(
        users_path=users, child_argv=lambda name: [], behind_proxy=True, check_token=counted
    )
    if not limited:
        server.failures = login.FailureLimit(burst=10**9)
        server.checks = login.CheckSlots(waiting=10**9, per_address=10**9, per_id=10**9)
    wrong = token.split(".")[0] + "." + "A" * 43
    async with TestClient(TestServer(await server.make_app())) as client:

        async def get(given: str, address: str) -> tuple[int, float]:
            start = time.perf_counter()
            response = await client.get(
                "/", params={"token": given}, headers={"X-Forwarded-For": address}
            )
            await response.read()
            return response.status, time.perf_counter() - start

        before = cpu()
        storm = [asyncio.ensure_future(get(wrong, "192.0.2.66")) for _ in range(flood)]
        await asyncio.sleep(0.2)  # the flood is in flight (this is a benchmark, not a test)
        status, waited = await get(token, "198.51.100.7")
        answers = Counter(s for s, _ in await asyncio.gather(*storm))
        spent = cpu() - before
    return {
        "login": "limited" if limited else "unbounded",
        "scrypt checks": checks[0],
        "CPU s": spent,
        "flood answers": ", ".join(f"{n} x {s}" for s, n in sorted(answers.items())),
        "labeller": status,
        "labeller waited s": waited,
    }


async def status_of(port: int, address: str, token: str) -> int:
    """One login over a socket bound to ``address``: the answer's status (0: no answer)."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
        request = f"GET /?token={token} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        writer.write(request.encode())
        answer = await reader.read()
        writer.close()
        return int(answer.split(b" ", 2)[1])
    except (OSError, IndexError, ValueError):
        return 0


async def many_addresses(addresses: int, kind: str, users: Path, tokens: dict[str, str]) -> dict:
    server = JudgingServer(users_path=users, child_argv=lambda name: [])
    known = tokens["alice" if kind == "the labeller's own id" else "bob"].split(".")[0]
    async with TestServer(await server.make_app(), host="127.0.0.1") as web:
        port = web.port
        assert port is not None
        stop = asyncio.Event()
        flood: Counter[int] = Counter()

        async def flooder(address: str) -> None:
            while not stop.is_set():
                ident = secrets.token_hex(6) if kind == "made-up ids" else known
                flood[await status_of(port, address, f"{ident}.{secrets.token_urlsafe(32)}")] += 1

        froms = [f"127.2.{i // 250}.{i % 250 + 1}" for i in range(addresses)]
        storm = [asyncio.ensure_future(flooder(a)) for a in froms for _ in range(2)]
        await asyncio.sleep(1.0)  # the flood is under way (a benchmark, not a test)
        answers: list[int] = []
        start = time.perf_counter()
        got_in = None
        for _ in range(8):
            tried = time.perf_counter()
            answers.append(await status_of(port, "127.3.0.1", tokens["alice"]))
            if answers[-1] == 200:
                got_in = time.perf_counter() - start
                break
            await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - tried)))
        stop.set()
        await asyncio.gather(*storm)
    return {
        "flood": f"{kind}, {addresses} addresses",
        "tries": len(answers),
        "answers": " ".join(map(str, answers)),
        "in after s": "never" if got_in is None else f"{got_in:.2f}",
        "flood answers": ", ".join(f"{n} x {s}" for s, n in sorted(flood.items())),
    }


def without_checks(users: Path, older: Path) -> None:
    """``users`` as a file written before entries had a quick check."""
    import tomli_w

    data = tomllib.loads(users.read_text())
    for entry in data["labellers"].values():
        entry.pop("check", None)
    older.write_text(tomli_w.dumps(data))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood", type=int, default=200, help="wrong tokens sent at once")
    parser.add_argument("--addresses", type=int, default=60, help="addresses of the 2nd flood")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each many-address flood")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as folder:
        users = Path(folder) / "team.toml"
        tokens = {name: add_labeller(users, name) for name in ("alice", "bob")}
        older = Path(folder) / "older.toml"
        without_checks(users, older)
        token = tokens["alice"]
        files = (("with checks", users), ("without (older file)", older))
        rows = [
            (entries, asyncio.run(scenario(limited, args.flood, path, token)))
            for entries, path in files
            for limited in (0, 1)
        ]
        wide = [
            (entries, kind, [
                asyncio.run(many_addresses(args.addresses, kind, path, tokens))
                for _ in range(args.repeat)
            ])
            for entries, path in files
            for kind in ("made-up ids", "a seen link's id", "the labeller's own id")
        ]  # fmt: skip
    print(f"flood of {args.flood} wrong tokens from one address, then one right token")
    print("| entries | login | scrypt checks | CPU s | flood answers | labeller | waited s |")
    print("|---|---|---|---|---|---|---|")
    for entries, row in rows:
        print(
            f"| {entries} | {row['login']} | {row['scrypt checks']} | {row['CPU s']:.2f} |"
            f" {row['flood answers']} | {row['labeller']} | {row['labeller waited s']:.2f} |"
        )
    print()
    print(
        "wrong tokens without pause from many addresses; the labeller tries once a second "
        f"({args.repeat} runs each)"
    )
    print("| entries | flood | tries (each run) | in after s: median | slowest | never in |")
    print("|---|---|---|---|---|---|")
    for entries, kind, runs in wide:
        times = [float(r["in after s"]) for r in runs if r["in after s"] != "never"]
        never = sum(r["in after s"] == "never" for r in runs)
        print(
            f"| {entries} | {kind}, {args.addresses} addresses |"
            f" {' '.join(str(r['tries']) for r in runs)} |"
            f" {statistics.median(times) if times else float('nan'):.2f} |"
            f" {max(times) if times else float('nan'):.2f} | {never} |"
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
