"""What the server lets out and which websockets it lets in, over real HTTP on loopback.

- A request line over aiohttp's 8,190-byte limit was logged by aiohttp with the line's start,
  token included: no token may reach a log record or the server's stderr.
- A websocket upgrade is accepted only from a page of this server (its Origin), and a ticket only
  with the cookie of the session it was issued to.
- The Server header names goldset, not aiohttp's and Python's versions.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer
from test_serve_http import TICKET, open_page

from goldset_tui.serve.server import JudgingServer
from goldset_tui.serve.users import add_labeller

REFUSES = "import sys; print('goldset: error: no screen here', file=sys.stderr); sys.exit(2)"


def make(tmp_path: Path, **kwargs) -> tuple[JudgingServer, dict[str, str]]:
    users = tmp_path / "team.toml"
    tokens = {name: add_labeller(users, name) for name in ("alice", "bob")}
    server = JudgingServer(
        users_path=users, child_argv=lambda name: [sys.executable, "-c", REFUSES], **kwargs
    )
    return server, tokens


def run(server: JudgingServer, scenario) -> None:
    async def go() -> None:
        async with TestClient(TestServer(await server.make_app())) as client:
            await scenario(client)

    asyncio.run(go())


async def raw(client: TestClient, request: bytes) -> bytes:
    """Send ``request`` as it is over a socket to the server; its whole answer."""
    reader, writer = await asyncio.open_connection(client.host, client.port)
    writer.write(request)
    await writer.drain()
    answer = await reader.read()
    writer.close()
    return answer


async def ticket_for(client: TestClient, token: str) -> str:
    page = await open_page(client, token)
    assert page.status == 200
    (ticket,) = TICKET.findall(await page.text())
    return ticket


async def upgrade_status(client: TestClient, ticket: str, **kwargs) -> int:
    """101 when the websocket opened (then read to its end), else the refusal's status."""
    try:
        ws = await client.ws_connect(f"/ws/{ticket}", **kwargs)
    except aiohttp.WSServerHandshakeError as refused:
        return refused.status
    async for _ in ws:
        pass
    return 101


def test_an_over_long_url_leaves_its_token_in_no_log(tmp_path: Path, caplog, capfd) -> None:
    server, tokens = make(tmp_path)
    caplog.set_level(logging.DEBUG)  # every record of every logger, debug ones included
    line = f"GET /?token={tokens['alice']}&pad={'A' * 9000} HTTP/1.1"

    async def scenario(client: TestClient) -> None:
        answer = await raw(client, f"{line}\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        assert b" 400 " in answer.split(b"\r\n")[0]  # aiohttp refused it (and used to log it)

    run(server, scenario)
    texts = [logging.Formatter().format(record) for record in caplog.records]
    assert any("Error handling request" in text for text in texts)  # aiohttp did speak
    secret = tokens["alice"].split(".")[1]
    assert not [text for text in texts if secret in text]
    captured = capfd.readouterr()
    assert secret not in captured.err and secret not in captured.out


def test_a_websocket_opens_only_from_a_page_of_this_server(tmp_path: Path) -> None:
    server, tokens = make(tmp_path)

    async def scenario(client: TestClient) -> None:
        ticket = await ticket_for(client, tokens["alice"])
        # A page on another site, where the labeller's browser would send their cookie along.
        assert await upgrade_status(client, ticket, origin="https://evil.example") == 403
        assert server.started == 0
        own = f"http://{client.host}:{client.port}"
        assert await upgrade_status(client, await ticket_for(client, tokens["alice"]), origin=own)
        assert server.started == 1
        # Another site under the same name on another port is another origin.
        other = f"http://{client.host}:{client.port + 1}"
        assert await upgrade_status(client, await ticket_for(client, tokens["alice"]), origin=other)
        assert server.started == 1

    run(server, scenario)


@pytest.mark.parametrize("behind_proxy", [True, False])
def test_behind_a_proxy_the_forwarded_host_is_the_page_s(tmp_path: Path, behind_proxy) -> None:
    # nginx passes the request on with Host: 127.0.0.1:8000 unless told otherwise; the browser's
    # Origin names the public host, which the proxy sends as X-Forwarded-Host.
    server, tokens = make(tmp_path, behind_proxy=behind_proxy)
    headers = {"X-Forwarded-Host": "judging.example.org"}

    async def scenario(client: TestClient) -> None:
        ticket = await ticket_for(client, tokens["alice"])
        status = await upgrade_status(
            client, ticket, origin="https://judging.example.org", headers=headers
        )
        assert status == (101 if behind_proxy else 403)  # without the flag, not believed

    run(server, scenario)


def test_a_ticket_opens_nothing_without_its_session_s_cookie(tmp_path: Path) -> None:
    server, tokens = make(tmp_path)

    async def scenario(client: TestClient) -> None:
        ticket = await ticket_for(client, tokens["alice"])
        client.session.cookie_jar.clear()  # the ticket seen elsewhere: no session at all
        assert await upgrade_status(client, ticket) == 403
        ticket = await ticket_for(client, tokens["alice"])
        await ticket_for(client, tokens["bob"])  # this browser is bob's now
        assert await upgrade_status(client, ticket) == 403
        assert server.started == 0
        assert await upgrade_status(client, await ticket_for(client, tokens["bob"])) == 101
        assert server.started == 1

    run(server, scenario)


def test_the_server_header_names_goldset_alone(tmp_path: Path) -> None:
    server, tokens = make(tmp_path)

    async def scenario(client: TestClient) -> None:
        answers = [
            await client.get("/"),
            await client.get("/", params={"token": tokens["alice"]}),
            await client.get("/static/js/textual.js"),
            await client.get("/nothing-here"),
            await client.get("/ws/not-a-ticket"),
        ]
        assert [a.headers.get("Server") for a in answers] == ["goldset"] * len(answers)
        # A request aiohttp cannot read never reaches the app: its own 400 says goldset too.
        answer = await raw(client, b"GET /" + b"A" * 9000 + b" HTTP/1.1\r\n\r\n")
        head = answer.split(b"\r\n\r\n", 1)[0].lower()
        assert b"\r\nserver: goldset\r\n" in head + b"\r\n"
        assert b"aiohttp" not in head and b"python" not in head

    run(server, scenario)
