"""A flood of wrong tokens from many client addresses must not lock a labeller out.

Each address had its own budget, so sixty addresses holding two checks each filled every place
in the queue (two running, eight waiting) and a labeller with a right token got 503, again and
again. The server runs on loopback here and the flood really comes from sixty addresses: Linux
routes all of 127.0.0.0/8 to the loopback interface, so a client socket bound to 127.2.0.N
reaches the server from that address. The scrypt check is held on an event, so the flood's
checks stay under way while the labeller logs in; nothing here waits for time to pass."""

from __future__ import annotations

import asyncio
import secrets
import sys
import threading
from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer
from test_serve_login import held

from goldset_tui.serve.server import JudgingServer
from goldset_tui.serve.users import add_labeller, labeller_for

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="127.0.0.0/8 routed to lo")

ADDRESSES = [f"127.2.{i // 250}.{i % 250 + 1}" for i in range(60)]


async def status_of(port: int, address: str, token: str) -> int:
    """A login over a real socket bound to ``address``: the answer's status code."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
    writer.write(
        f"GET /?token={token} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode()
    )
    await writer.drain()
    answer = await reader.read()
    writer.close()
    return int(answer.split(b" ", 2)[1])


def test_a_right_token_gets_in_under_a_flood_from_sixty_addresses(tmp_path: Path) -> None:
    gate, started, held_check = held()
    users = tmp_path / "team.toml"
    tokens = {name: add_labeller(users, name) for name in ("alice", "bob")}
    server = JudgingServer(users_path=users, child_argv=lambda name: [], check_token=held_check)
    bob_id = tokens["bob"].split(".")[0]
    # Made-up ids, and a seen link's id (bob's) with a wrong secret, from every address.
    flood = [
        (address, token)
        for address in ADDRESSES
        for token in (
            f"{secrets.token_hex(6)}.{'A' * 43}",
            f"{secrets.token_hex(6)}.{'B' * 43}",
            f"{bob_id}.{'A' * 43}",
            f"{bob_id}.{'B' * 43}",
        )
    ]

    async def scenario() -> None:
        async with TestServer(await server.make_app(), host="127.0.0.1") as web:
            port = web.port
            assert port is not None
            sent = [asyncio.ensure_future(status_of(port, a, t)) for a, t in flood]
            # Until every request of the flood is either answered or holding a place.
            for _ in range(1_000_000):
                if sum(f.done() for f in sent) + server.checks.admitted == len(flood):
                    break
                await asyncio.sleep(0)
            assert sum(f.done() for f in sent) + server.checks.admitted == len(flood)
            # Made-up ids took no place; bob's id took its share, not the whole queue.
            holding = server.checks.admitted
            login = asyncio.ensure_future(status_of(port, "127.2.9.9", tokens["alice"]))
            for _ in range(1_000_000):
                if login.done() or server.checks.admitted == holding + 1:
                    break
                await asyncio.sleep(0)
            # Not refused (the old server answered 503 here): admitted, waiting for its check.
            assert not login.done(), f"the labeller was refused: {login.result()}"
            gate.set()
            assert await asyncio.wait_for(login, 60) == 200
            answers = await asyncio.wait_for(asyncio.gather(*sent), 60)
            assert 200 not in answers and answers.count(403) >= 2 * len(ADDRESSES)

    try:
        asyncio.run(scenario())
    finally:
        gate.set()


def test_a_flood_on_the_labeller_s_own_id_leaves_them_a_place(tmp_path: Path) -> None:
    # Someone who has seen alice's link (its id) floods her id with wrong secrets from twenty
    # addresses. Once each address has had a wrong token checked, alice (whose address has sent
    # none) still finds a place for her own check.
    gate, _, held_check = held()
    gate.set()  # first the real checks of one wrong token per address
    users = tmp_path / "team.toml"
    alice = add_labeller(users, "alice")
    server = JudgingServer(users_path=users, child_argv=lambda name: [], check_token=held_check)
    wrong = f"{alice.split('.')[0]}.{'A' * 43}"
    addresses = ADDRESSES[:20]

    async def scenario() -> None:
        async with TestServer(await server.make_app(), host="127.0.0.1") as web:
            port = web.port
            assert port is not None
            first = [await status_of(port, address, wrong) for address in addresses]
            assert first == [403] * len(addresses)
            gate.clear()
            sent = [asyncio.ensure_future(status_of(port, a, wrong)) for a in addresses * 2]
            for _ in range(1_000_000):
                if sum(f.done() for f in sent) + server.checks.admitted == len(sent):
                    break
                await asyncio.sleep(0)
            holding = server.checks.admitted
            login = asyncio.ensure_future(status_of(port, "127.2.9.9", alice))
            for _ in range(1_000_000):
                if login.done() or server.checks.admitted == holding + 1:
                    break
                await asyncio.sleep(0)
            assert not login.done(), f"the labeller was refused: {login.result()}"
            gate.set()
            assert await asyncio.wait_for(login, 60) == 200
            assert 200 not in await asyncio.wait_for(asyncio.gather(*sent), 60)

    try:
        asyncio.run(scenario())
    finally:
        gate.set()


def test_a_flood_on_the_labeller_s_own_id_costs_no_scrypt_and_holds_her_no_place(
    tmp_path: Path,
) -> None:
    # Sixty addresses that have seen alice's link send wrong secrets for her id; every check
    # they reach is held on a gate that never opens. Her entry's quick check refuses them all
    # before any scrypt work, so none of them is under way and her own login, from an address
    # that sent nothing, is served without the gate: before, the flood's checks held both
    # running places and hers waited behind them (up to 2.67 s measured under a real flood).
    gate = threading.Event()
    flood_checks: list[str] = []
    users = tmp_path / "team.toml"
    alice = add_labeller(users, "alice")

    def check(labellers, token):
        if token != alice:
            flood_checks.append(token)
            gate.wait(timeout=60)
        return labeller_for(labellers, token)

    server = JudgingServer(users_path=users, child_argv=lambda name: [], check_token=check)
    ident = alice.split(".")[0]
    flood = [(a, f"{ident}.{c * 43}") for a in ADDRESSES for c in "AB"]

    async def scenario() -> None:
        async with TestServer(await server.make_app(), host="127.0.0.1") as web:
            port = web.port
            assert port is not None
            sent = [asyncio.ensure_future(status_of(port, a, t)) for a, t in flood]
            for _ in range(1_000_000):
                if sum(f.done() for f in sent) + server.checks.admitted == len(flood):
                    break
                await asyncio.sleep(0)
            assert server.checks.admitted == 0 and flood_checks == []
            assert await asyncio.wait_for(status_of(port, "127.2.9.9", alice), 60) == 200
            answers = await asyncio.gather(*sent)
            assert set(answers) <= {403, 429} and answers.count(403) == len(flood)

    try:
        asyncio.run(scenario())
    finally:
        gate.set()
