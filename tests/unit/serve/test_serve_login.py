"""The login of `goldset serve`, over real HTTP in-process (aiohttp's test client): the token
leaves the address bar for a session cookie; wrong tokens are limited per client address and
token checks at once are capped, both answered before any scrypt work. Clocks are injected and
the scrypt check is held on an event: nothing here waits for time to pass."""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path

from aiohttp.test_utils import TestClient, TestServer
from test_serve_http import TICKET, open_page

from goldset_tui.serve.login import (
    BURST,
    CHECKS_AT_ONCE,
    CHECKS_PER_ADDRESS,
    CHECKS_PER_ID,
    CHECKS_WAITING,
    REFILL_SECONDS,
)
from goldset_tui.serve.server import JudgingServer
from goldset_tui.serve.users import add_labeller, labeller_for, remove_labeller

REFUSES = (
    "import sys; print('goldset: error: no screen in this test', file=sys.stderr); sys.exit(2)"
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make(tmp_path: Path, **kwargs):
    users = tmp_path / "team.toml"
    tokens = {name: add_labeller(users, name) for name in ("alice", "bob")}
    calls: list[str] = []

    def check(labellers, token):  # the real check, counted
        calls.append(token)
        return labeller_for(labellers, token)

    kwargs.setdefault("check_token", check)
    server = JudgingServer(
        users_path=users, child_argv=lambda name: [sys.executable, "-c", REFUSES], **kwargs
    )
    return server, tokens, calls, users


def without_checks(users: Path) -> None:
    """USERS.toml as goldset wrote it before entries had a quick ``check``: every wrong token for
    a known id then reaches scrypt, which is what the limits below are for."""
    import tomllib

    import tomli_w

    data = tomllib.loads(users.read_text())
    for entry in data["labellers"].values():
        del entry["check"]
    users.write_text(tomli_w.dumps(data))


def run(server: JudgingServer, scenario) -> None:
    async def go() -> None:
        async with TestClient(TestServer(await server.make_app())) as client:
            await scenario(client)

    asyncio.run(go())


def test_the_token_leaves_the_address_for_an_http_only_strict_cookie(tmp_path: Path) -> None:
    server, tokens, calls, users = make(tmp_path)

    async def scenario(client: TestClient) -> None:
        first = await client.get("/", params={"token": tokens["alice"]})
        body = await first.text()
        assert first.status == 200
        # The sign-in step holds no ticket and no token; it replaces its own URL (the one with
        # the token) in the history by the same address without the query.
        assert "ws/" not in body and tokens["alice"] not in body
        assert "window.location.replace" in body and 'url.search = ""' in body
        cookie = first.headers["Set-Cookie"]
        assert cookie.startswith(f"{server.cookie_name}=") and "8000" in server.cookie_name
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert "Secure" not in cookie  # plain http here: a Secure cookie would never come back
        assert first.headers["Cache-Control"] == "no-store"
        # The page at the address without the token: the judging page, by the cookie alone.
        page = await client.get("/")
        (ticket,) = TICKET.findall(await page.text())
        assert page.status == 200 and page.url.query_string == ""
        assert tokens["alice"] not in await page.text()
        # The ticket opens one websocket once; used again, refused.
        ws = await client.ws_connect(f"/ws/{ticket}")
        async for _ in ws:
            pass
        assert (await client.get(f"/ws/{ticket}")).status == 403
        # A reload gets a new ticket with the cookie: no token, no new scrypt check.
        assert (await client.get("/")).status == 200 and calls == [tokens["alice"]]
        # Another browser (no cookie) gets nothing without the token.
        client.session.cookie_jar.clear()
        assert (await client.get("/")).status == 403
        # Behind an HTTPS proxy the cookie is Secure.
        https = await client.get(
            "/", params={"token": tokens["bob"]}, headers={"X-Forwarded-Proto": "https"}
        )
        assert "Secure" in https.headers["Set-Cookie"]

    run(server, scenario)


def test_a_removed_labeller_s_session_ends(tmp_path: Path) -> None:
    server, tokens, _, users = make(tmp_path)

    async def scenario(client: TestClient) -> None:
        assert (await open_page(client, tokens["alice"])).status == 200
        remove_labeller(users, "alice")
        assert (await client.get("/")).status == 403
        add_labeller(users, "alice")  # back, with a new token: the old session stays ended
        assert (await client.get("/")).status == 403

    run(server, scenario)


def test_wrong_tokens_from_one_address_are_limited_before_any_scrypt_work(tmp_path: Path) -> None:
    clock = Clock()
    server, tokens, calls, users = make(tmp_path, clock=clock, behind_proxy=True)
    without_checks(users)  # wrong tokens for a known id reach scrypt, as before entries had one
    wrong = tokens["alice"].split(".")[0] + "." + "A" * 43

    async def forwarded(token: str, client_address: str, client: TestClient):
        # The client's own (made-up) entry first, then the one the proxy adds: the last counts.
        return await client.get(
            "/", params={"token": token}, headers={"X-Forwarded-For": f"10.9.9.9, {client_address}"}
        )

    async def scenario(client: TestClient) -> None:
        for _ in range(BURST):
            assert (await forwarded(wrong, "192.0.2.1", client)).status == 403
        limited = await get(wrong, "192.0.2.1", client)
        assert limited.status == 429
        assert limited.headers["Retry-After"] == str(int(REFILL_SECONDS))
        assert len(calls) == BURST  # the refused try cost no scrypt check
        # Even the right token waits at that address; another address is not held back.
        assert (await forwarded(tokens["bob"], "192.0.2.1", client)).status == 429
        assert (await forwarded(tokens["bob"], "198.51.100.7", client)).status == 200
        assert len(calls) == BURST + 1
        # One try comes back every REFILL_SECONDS.
        clock.now += REFILL_SECONDS
        assert (await forwarded(wrong, "192.0.2.1", client)).status == 403
        assert (await forwarded(wrong, "192.0.2.1", client)).status == 429
        # Right tokens use no try: a labeller logging in again and again is never limited.
        for _ in range(BURST + 5):
            assert (await forwarded(tokens["alice"], "203.0.113.5", client)).status == 200

    run(server, scenario)


def test_without_behind_proxy_the_forwarded_header_is_not_believed(tmp_path: Path) -> None:
    server, tokens, _, _ = make(tmp_path, clock=Clock())
    wrong = tokens["alice"].split(".")[0] + "." + "A" * 43

    async def scenario(client: TestClient) -> None:
        for i in range(BURST):
            headers = {"X-Forwarded-For": f"192.0.2.{i}"}  # a guesser's made-up addresses
            response = await client.get("/", params={"token": wrong}, headers=headers)
            assert response.status == 403
        assert (await client.get("/", params={"token": wrong})).status == 429

    run(server, scenario)


def held():
    """(the gate, a count of checks begun, a token check that waits for the gate)."""
    gate = threading.Event()
    started = threading.Semaphore(0)

    def held_check(labellers, token):
        started.release()
        gate.wait(timeout=60)
        return labeller_for(labellers, token)

    return gate, started, held_check


async def get(token: str, address: str, client: TestClient):
    """A login from ``address``, as a local proxy says it (the server runs with behind_proxy)."""
    return await client.get("/", params={"token": token}, headers={"X-Forwarded-For": address})


def test_checks_beyond_the_cap_are_answered_503_at_once_not_queued(tmp_path: Path) -> None:
    gate, started, held_check = held()
    server, tokens, _, users = make(tmp_path, check_token=held_check, behind_proxy=True)
    admitted = CHECKS_AT_ONCE + CHECKS_WAITING
    # One labeller's id may hold CHECKS_PER_ID places: enough labellers to fill them all.
    more = -(-admitted // CHECKS_PER_ID) - len(tokens)
    tokens |= {f"l{i}": add_labeller(users, f"l{i}") for i in range(more + 1)}
    late = tokens.pop(f"l{more}")  # one with no check under way, arriving once all are taken
    logins = [token for token in tokens.values() for _ in range(CHECKS_PER_ID)][:admitted]

    async def scenario(client: TestClient) -> None:
        loop = asyncio.get_running_loop()
        waiting = [
            asyncio.ensure_future(get(token, f"192.0.2.{i}", client))
            for i, token in enumerate(logins)
        ]
        # Until every request is admitted: CHECKS_AT_ONCE running (each has said so), the rest
        # waiting for a slot.
        for _ in range(CHECKS_AT_ONCE):
            assert await loop.run_in_executor(None, started.acquire, True, 60)
        for _ in range(100_000):  # let the other requests reach the server (no time passes)
            if server.checks.admitted == admitted:
                break
            await asyncio.sleep(0)
        assert server.checks.admitted == admitted
        assert not started.acquire(blocking=False)  # no third check runs
        # One more, with every slot and every waiting place taken: refused at once.
        refused = await asyncio.wait_for(get(late, "198.51.100.7", client), 30)
        assert refused.status == 503 and refused.headers["Retry-After"] == "1"
        gate.set()
        done = await asyncio.gather(*waiting)
        assert [r.status for r in done] == [200] * admitted  # the admitted ones were served
        assert server.checks.admitted == 0
        # The refused client's try was given back: its address is not limited for it.
        assert server.failures.take("198.51.100.7") is None

    try:
        run(server, scenario)
    finally:
        gate.set()


def test_one_address_cannot_take_every_place_in_the_queue(tmp_path: Path) -> None:
    # A burst from one client filled all ten places (2 running, 8 waiting): a labeller arriving
    # meanwhile from elsewhere got 503. Now one address has CHECKS_PER_ADDRESS checks under way.
    gate, started, held_check = held()
    server, tokens, _, users = make(tmp_path, check_token=held_check, behind_proxy=True)
    without_checks(users)  # wrong tokens for a known id reach scrypt, as before entries had one
    wrong = tokens["alice"].split(".")[0] + "." + "A" * 43

    async def scenario(client: TestClient) -> None:
        loop = asyncio.get_running_loop()
        flood = [
            asyncio.ensure_future(get(wrong, "192.0.2.66", client))
            for _ in range(CHECKS_PER_ADDRESS)
        ]
        for _ in range(CHECKS_PER_ADDRESS):
            assert await loop.run_in_executor(None, started.acquire, True, 60)
        more = await asyncio.wait_for(get(wrong, "192.0.2.66", client), 30)
        assert more.status == 429 and more.headers["Retry-After"] == "1"
        # The labeller from elsewhere is admitted (and served once the checks go on).
        labeller = asyncio.ensure_future(get(tokens["bob"], "198.51.100.7", client))
        for _ in range(100_000):
            if server.checks.admitted == CHECKS_PER_ADDRESS + 1:
                break
            await asyncio.sleep(0)
        assert server.checks.admitted == CHECKS_PER_ADDRESS + 1
        gate.set()
        assert (await labeller).status == 200
        assert [r.status for r in await asyncio.gather(*flood)] == [403] * CHECKS_PER_ADDRESS
        # The refused one used no try: BURST - CHECKS_PER_ADDRESS are left at that address.
        for _ in range(BURST - CHECKS_PER_ADDRESS):
            assert server.failures.take("192.0.2.66") is None
        assert server.failures.take("192.0.2.66") is not None

    try:
        run(server, scenario)
    finally:
        gate.set()


def test_only_a_proxy_on_this_machine_names_the_client(tmp_path: Path) -> None:
    from unittest import mock

    from aiohttp.test_utils import make_mocked_request

    def request(peer: str, forwarded: str):
        transport = mock.Mock()
        transport.get_extra_info.return_value = (peer, 40000)
        headers = {"X-Forwarded-For": forwarded}
        return make_mocked_request("GET", "/", headers=headers, transport=transport)

    proxied, _, _, _ = make(tmp_path, behind_proxy=True)
    assert proxied.client_address(request("127.0.0.1", "6.6.6.6, 192.0.2.4")) == "192.0.2.4"
    assert proxied.client_address(request("::1", "192.0.2.4")) == "192.0.2.4"
    # From another machine the header is the client's own word: its address counts.
    assert proxied.client_address(request("203.0.113.9", "192.0.2.4")) == "203.0.113.9"
    plain = JudgingServer(users_path=tmp_path / "team.toml", child_argv=lambda name: [])
    assert plain.client_address(request("127.0.0.1", "192.0.2.4")) == "127.0.0.1"
