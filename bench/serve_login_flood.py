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

    python bench/serve_login_flood.py --flood 200
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from aiohttp.test_utils import TestClient, TestServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from goldset_tui.serve import login
from goldset_tui.serve.server import JudgingServer
from goldset_tui.serve.users import add_labeller, labeller_for


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
        server.checks = login.CheckSlots(waiting=10**9, per_address=10**9)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood", type=int, default=200, help="wrong tokens sent at once")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        users = Path(folder) / "team.toml"
        token = add_labeller(users, "alice")
        rows = [asyncio.run(scenario(limited, args.flood, users, token)) for limited in (0, 1)]
    print(f"flood of {args.flood} wrong tokens from one address, then one right token")
    print("| login | scrypt checks | CPU s | flood answers | labeller | labeller waited s |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['login']} | {row['scrypt checks']} | {row['CPU s']:.2f} |"
            f" {row['flood answers']} | {row['labeller']} | {row['labeller waited s']:.2f} |"
        )
    print(f"CPU ratio unbounded/limited: {rows[0]['CPU s'] / max(rows[1]['CPU s'], 1e-9):.1f}x")


if __name__ == "__main__":
    main()
