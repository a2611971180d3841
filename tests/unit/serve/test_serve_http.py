"""The server's gate, over real HTTP and websockets in-process (aiohttp's test client): no token,
no page and no process; a ticket opens one websocket once; the command line of the judging
process is built from the labeller's name in USERS.toml, never from the request; a second screen
for the same labeller is refused; a child that refuses to start is explained in the browser.

The judging process is replaced by a small Python script here (the real one is driven in a real
browser in tests/browser/)."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import aiohttp
from aiohttp.test_utils import TestClient, TestServer

from goldset_tui.serve.server import JudgingServer
from goldset_tui.serve.users import add_labeller

TICKET = re.compile(r'new URL\("ws/([A-Za-z0-9_-]+)"')
# A stand-in judging process: prints its arguments as its one-line refusal and exits 2.
ECHO_ARGV = (
    "import sys; print('goldset: error: argv=' + repr(sys.argv[1:]), file=sys.stderr); sys.exit(2)"
)


def make_server(tmp_path: Path, argv=None, busy=()) -> tuple[JudgingServer, dict[str, str], list]:
    users = tmp_path / "team.toml"
    tokens = {name: add_labeller(users, name) for name in ("alice", "bob")}
    calls: list[str] = []

    def child_argv(name: str) -> list[str]:
        calls.append(name)
        return argv or [sys.executable, "-c", ECHO_ARGV, f"--labeller={name}"]

    server = JudgingServer(
        users_path=users, child_argv=child_argv, is_busy=lambda name: name in busy
    )
    return server, tokens, calls


def run(server: JudgingServer, scenario) -> None:
    async def go() -> None:
        async with TestClient(TestServer(await server.make_app())) as client:
            await scenario(client)

    asyncio.run(go())


async def open_page(client: TestClient, token: str):
    """What a browser does with a labeller's link: the token is checked once, the page that comes
    back sets the session's cookie and goes to the same address without the token."""
    signing_in = await client.get("/", params={"token": token})
    if signing_in.status != 200:
        return signing_in
    assert "window.location.replace" in await signing_in.text()
    return await client.get("/")


async def received(ws: aiohttp.ClientWebSocketResponse) -> str:
    text = ""
    async for message in ws:
        if message.type == aiohttp.WSMsgType.BINARY:
            text += message.data.decode("utf-8", "replace")
    return text


def test_without_a_valid_token_no_page_no_ticket_no_process(tmp_path: Path) -> None:
    server, tokens, calls = make_server(tmp_path)
    alice_id = tokens["alice"].split(".")[0]

    async def scenario(client: TestClient) -> None:
        for query in ("", "?token=", f"?token={alice_id}.{'A' * 43}", "?token=alice"):
            response = await client.get(f"/{query}")
            body = await response.text()
            assert response.status == 403, query
            assert "ws/" not in body and "textual.js" not in body
            assert response.headers["Cache-Control"] == "no-store"
        for path in ("/ws/x", f"/ws/{tokens['alice']}", "/ws/"):
            response = await client.get(path)
            assert response.status in (403, 404), path

    run(server, scenario)
    assert calls == [] and server.started == 0


def test_a_ticket_opens_one_websocket_once_with_the_name_from_users_toml(tmp_path: Path) -> None:
    server, tokens, calls = make_server(tmp_path)

    async def scenario(client: TestClient) -> None:
        page = await open_page(client, tokens["bob"])
        assert page.status == 200
        assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
        (ticket,) = TICKET.findall(await page.text())
        # Whatever the browser adds to the URL is not the name, nor any part of the command.
        ws = await client.ws_connect(
            f"/ws/{ticket}?width=80;rm%20-rf&height=24&labeller=alice&name=alice"
        )
        shown = await received(ws)
        assert "argv=['--labeller=bob']" in shown  # the stand-in's refusal, shown in the browser
        again = await client.get(f"/ws/{ticket}")
        assert again.status == 403  # used once

    run(server, scenario)
    assert calls == ["bob"] and server.started == 1 and server.live == {}


def test_a_second_screen_of_the_same_labeller_is_refused(tmp_path: Path) -> None:
    # The stand-in stays up until its stdin closes, like a judging screen waiting for keys.
    waits = "import sys; print('__GANGLION__', flush=True); sys.stdin.read()"
    server, tokens, calls = make_server(tmp_path, argv=[sys.executable, "-c", waits], busy={"bob"})

    async def scenario(client: TestClient) -> None:
        first = await open_page(client, tokens["alice"])
        # A second tab of the same browser (its session's cookie: a ticket opens a websocket only
        # with the cookie of the session it was issued to).
        second = await client.get("/")
        tickets = [TICKET.findall(await r.text())[0] for r in (first, second)]
        ws = await client.ws_connect(f"/ws/{tickets[0]}")
        for _ in range(100):
            if "alice" in server.live:
                break
            await asyncio.sleep(0.05)
        assert "alice" in server.live
        # A page asked for now may be this tab's own reload, so it gets a page; its websocket
        # (like that of a page loaded before the first one opened) gets the refusal once the
        # first screen has not closed within RELOAD_SECONDS, and no second process.
        third = await client.get("/")
        assert third.status == 200
        tickets.append(TICKET.findall(await third.text())[0])
        for ticket in tickets[1:]:
            ws2 = await client.ws_connect(f"/ws/{ticket}")
            assert "already has a judging screen open" in await received(ws2)
        # Busy in the store (a terminal session holds bob's journal lock): refused the same way.
        bob = await open_page(client, tokens["bob"])
        assert bob.status == 409
        await ws.close()
        for _ in range(200):
            if not server.live:
                break
            await asyncio.sleep(0.05)
        assert server.live == {}

    run(server, scenario)
    assert calls == ["alice"] and server.started == 1


ECHO_PACKETS = """
import sys
out, inp = sys.stdout.buffer, sys.stdin.buffer
out.write(b"__GANGLION__\\n"); out.flush()
while len(head := inp.read(5)) == 5:
    text = head[:1] + b":" + inp.read(int.from_bytes(head[1:], "big")) + b"\\n"
    out.write(b"D" + len(text).to_bytes(4, "big") + text); out.flush()
"""


def test_keys_go_to_the_screen_as_input_and_sizes_are_clamped(tmp_path: Path) -> None:
    server, tokens, _ = make_server(tmp_path, argv=[sys.executable, "-c", ECHO_PACKETS])

    async def scenario(client: TestClient) -> None:
        page = await open_page(client, tokens["alice"])
        (ticket,) = TICKET.findall(await page.text())
        ws = await client.ws_connect(f"/ws/{ticket}")
        await ws.send_json(["stdin", "2; --labeller=bob"])
        await ws.send_json(["resize", {"width": "99999", "height": -5}])
        await ws.send_json(["resize", {"width": [1], "height": True}])
        seen = ""
        while seen.count("\n") < 3:
            message = await ws.receive(timeout=30)
            seen += message.data.decode()
        await ws.close()
        lines = seen.splitlines()
        assert lines[0] == "D:2; --labeller=bob"  # typed text is input to the screen, nothing more
        assert lines[1] == 'M:{"type": "resize", "width": 1000, "height": 5}'
        assert lines[2] == 'M:{"type": "resize", "width": 80, "height": 24}'

    run(server, scenario)


def test_a_reload_reopens_the_screen_instead_of_refusing_it_as_a_second_tab(
    tmp_path: Path,
) -> None:
    # A browser's reload asks for the new page while the old page's websocket is still open, and
    # closes that websocket only once the new page has arrived.
    waits = "import sys; print('__GANGLION__', flush=True); sys.stdin.read()"
    server, tokens, calls = make_server(tmp_path, argv=[sys.executable, "-c", waits])

    async def scenario(client: TestClient) -> None:
        first = await open_page(client, tokens["alice"])
        ws = await client.ws_connect(f"/ws/{TICKET.findall(await first.text())[0]}")
        for _ in range(100):
            if "alice" in server.live:
                break
            await asyncio.sleep(0.05)
        reloaded = await client.get("/")  # a reload: the session's cookie, no token
        assert reloaded.status == 200  # was 409: "already judging elsewhere"
        (ticket,) = TICKET.findall(await reloaded.text())
        await ws.close()  # the old page goes; the new one opens its websocket
        ws2 = await client.ws_connect(f"/ws/{ticket}")
        for _ in range(200):
            if server.started == 2:
                break
            await asyncio.sleep(0.05)
        assert server.started == 2 and "alice" in server.live
        await ws2.close()
        for _ in range(200):
            if not server.live:
                break
            await asyncio.sleep(0.05)

    run(server, scenario)
    assert calls == ["alice", "alice"]


def test_after_quick_reloads_the_last_page_gets_the_screen(tmp_path: Path) -> None:
    # Two reloads in a row: pages B and C both wait for A's screen to go; whichever starts its
    # screen first is then closed by the browser (the page went), and the other must wait for
    # that screen too rather than being refused as a second tab.
    server, tokens, calls = make_server(tmp_path, argv=[sys.executable, "-c", ECHO_PACKETS])

    async def ticket(client: TestClient) -> str:
        page = await open_page(client, tokens["alice"])
        return TICKET.findall(await page.text())[0]

    async def until(check) -> None:
        for _ in range(200):
            if check():
                return
            await asyncio.sleep(0.05)

    async def echo(ws: aiohttp.ClientWebSocketResponse) -> str:
        message = await ws.receive(timeout=60)
        text = message.data.decode() if message.type == aiohttp.WSMsgType.BINARY else ""
        assert "already has a judging screen open" not in text  # neither page is a second tab
        return text

    async def scenario(client: TestClient) -> None:
        a = await client.ws_connect(f"/ws/{await ticket(client)}")
        await until(lambda: server.started == 1)
        b = await client.ws_connect(f"/ws/{await ticket(client)}")
        c = await client.ws_connect(f"/ws/{await ticket(client)}")
        await a.close()
        # Only a page with a screen echoes what it types; the other's words wait, unread.
        await b.send_json(["stdin", "B"])
        await c.send_json(["stdin", "C"])
        pending = {asyncio.ensure_future(echo(ws)): ws for ws in (b, c)}
        done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        (first,) = done
        winner = pending.pop(first)
        (waiting, other) = next(iter(pending.items()))
        await winner.close()  # the browser unloads that page
        # The other page gets a screen, which reads what it typed: not "already has a screen".
        assert ("C" if other is c else "B") in await waiting
        assert server.started == 3
        await other.close()
        await until(lambda: not server.live)

    run(server, scenario)
    assert calls == ["alice"] * 3


def test_a_screen_hung_up_before_it_opened_is_logged_by_its_signal(tmp_path: Path, capsys) -> None:
    # A browser gone while the screen was still starting: SIGHUP ends it before the app set its
    # handler. The log said "exit status -1"; it names the signal.
    still_starting = "import time; time.sleep(30)"
    server, tokens, _ = make_server(tmp_path, argv=[sys.executable, "-c", still_starting])

    async def scenario(client: TestClient) -> None:
        page = await open_page(client, tokens["alice"])
        ws = await client.ws_connect(f"/ws/{TICKET.findall(await page.text())[0]}")
        for _ in range(100):
            if server.started == 1:
                break
            await asyncio.sleep(0.05)
        await ws.close()
        for _ in range(200):
            if not server.live:
                break
            await asyncio.sleep(0.05)

    run(server, scenario)
    assert "alice's judging screen closed (ended by SIGHUP)" in capsys.readouterr().err
