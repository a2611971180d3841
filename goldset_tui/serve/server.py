"""The web server of `goldset serve`: textual-serve's protocol, with a login in front.

textual-serve runs a Textual app as a subprocess per websocket and relays its screen to
``textual.js`` in the browser. goldset uses its process protocol (``AppService``), its message
loop and its static files, and replaces what decides who gets a process:

- ``GET /?token=T``: the token is checked against USERS.toml (``serve.users``), within the limits
  of ``serve.login`` (tries per client address: 429; checks at once: 503; both before any scrypt
  work; a token whose id USERS.toml does not hold, or that fails its entry's quick check, is
  answered 403 with neither scrypt work nor a place). A bad token gets a 403 page and nothing
  else: no process, nothing of the pool. A good one opens a session (an HttpOnly,
  SameSite=Strict cookie) and a page that replaces the token's URL by the same address without
  it, so the token stays in neither the address bar nor the history.
- ``GET /`` with the session's cookie: the judging page with a one-use ticket, valid for
  ``TICKET_SECONDS``, naming that labeller; without a live session (or once the labeller is
  removed from USERS.toml), the 403 page. A reload comes here: no token, no scrypt check.
- ``GET /ws/<ticket>``: the websocket. An unknown, used or expired ticket is refused before the
  upgrade. Otherwise the judging screen starts as ``python -m goldset_tui.serve.child`` with an
  argument list built here (no shell; the labeller's name comes from the ticket, which came from
  USERS.toml). Nothing the browser sends reaches that command line: the browser only sends keys,
  sizes (clamped integers) and pings, over the process's stdin.
- One judging screen per labeller at a time (the store's journal lock enforces it across
  processes and machines; the server says so before starting a second one).
- A closed tab, and the server's own SIGINT/SIGTERM/SIGHUP, send SIGHUP to the judging process,
  which the app handles like a dropped terminal: flush, close the writer, exit.

The access log is off: a first URL carries a token, websocket URLs carry tickets; what aiohttp
logs on its own is filtered (``serve.guard``), which also checks a websocket's Origin.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import secrets
import signal
import time
from collections.abc import Callable
from pathlib import Path

from aiohttp import web

from goldset_tui.errors import InputError
from goldset_tui.serve.guard import loopback, plain_server_header, quiet_logs, same_origin
from goldset_tui.serve.login import CheckSlots, FailureLimit, Sessions
from goldset_tui.serve.page import judging_page, refusal_page, security_headers, signing_in_page
from goldset_tui.serve.process import (
    STOP_SECONDS,
    JudgingProcess,
    clamped_size,
    how_it_ended,
    say,
    terminal_text,
)
from goldset_tui.serve.textual_serve_adapter import WebServer
from goldset_tui.serve.users import (
    Labeller,
    fails_check,
    labeller_for,
    read_labellers,
    token_id,
)

TICKET_SECONDS = 60.0
# A reload closes the old page's websocket only once the new page has arrived: how long the new
# page's websocket waits for the old screen to start closing before calling it a second tab.
RELOAD_SECONDS = 1.5
# A cookie is sent to every port of its host: each server's port is in its name, so two servers on
# one machine (two pools) keep their sessions apart.
SESSION_COOKIE = "goldset_session"


class JudgingServer(WebServer):
    """textual-serve's server with goldset's login, tickets and one screen per labeller."""

    def __init__(
        self,
        *,
        users_path: Path,
        child_argv: Callable[[str], list[str]],
        is_busy: Callable[[str], bool] = lambda name: False,
        host: str = "127.0.0.1",
        port: int = 8000,
        behind_proxy: bool = False,
        clock: Callable[[], float] = time.monotonic,
        check_token: Callable[[dict[str, Labeller], str], str | None] = labeller_for,
    ) -> None:
        super().__init__(command="goldset judge", host=host, port=port, title="goldset")
        self.users_path = users_path
        self.child_argv = child_argv
        self.is_busy = is_busy
        self.behind_proxy = behind_proxy
        self.clock = clock
        self.check_token = check_token  # the scrypt check (tests hold it on an event)
        self.live: dict[str, JudgingProcess] = {}
        self.started = 0  # judging processes started so far (tests read it)
        self._tickets: dict[str, tuple[str, str, float]] = {}  # name, session key, expiry
        self.failures = FailureLimit(clock=clock)
        self.checks = CheckSlots()
        self.sessions = Sessions(clock=clock)
        self.cookie_name = f"{SESSION_COOKIE}_{port}"

    async def make_app(self) -> web.Application:
        quiet_logs()
        app = web.Application()
        plain_server_header(app)
        app.add_routes(
            [
                web.get("/", self.handle_index),
                web.get("/ws/{ticket}", self.handle_websocket),
                web.static("/static", self.statics_path),
            ]
        )
        return app

    # --- who is asking ----------------------------------------------------------------------
    def _labellers(self) -> dict[str, Labeller]:
        # Read on every login: a labeller added or removed counts at once, without a restart.
        try:
            return read_labellers(self.users_path)
        except (InputError, OSError) as exc:
            say(f"cannot read the labellers file, so nobody gets in: {exc}")
            return {}

    def client_address(self, request: web.Request) -> str:
        """Whose tries a login uses. Behind a reverse proxy on this machine every request comes
        from the proxy's address, so (with ``behind_proxy``) the last X-Forwarded-For entry,
        the one the proxy added, names the client; a client's own entries come before it. Only a
        request from this machine (the proxy) is believed: another could write any header."""
        remote = request.remote or "?"
        if self.behind_proxy and loopback(remote):
            forwarded = request.headers.getall("X-Forwarded-For", [])
            hops = [h.strip() for h in ",".join(forwarded).split(",") if h.strip()]
            if hops:
                return hops[-1]
        return remote

    def _session(self, request: web.Request) -> str | None:
        """The labeller of this browser's session, while USERS.toml still has them by that id."""
        session = self.sessions.find(request.cookies.get(self.cookie_name, ""))
        if session is None:
            return None
        entry = self._labellers().get(session.id)
        return session.name if entry is not None and entry.name == session.name else None

    async def _login(self, request: web.Request, token: str) -> web.Response:
        address = self.client_address(request)
        clean = self.failures.clean(address)  # before this try is taken
        wait = self.failures.take(address)
        if wait is not None:
            return self._refused(429, "too many wrong tokens", wait, "from your address")
        labellers, check, ident = self._labellers(), self.check_token, token_id(token)
        if ident is None or ident not in labellers:
            # No labeller has this id: no scrypt work and no place in the queue, so made-up
            # tokens from any number of addresses cannot keep a labeller waiting.
            return self._no_labeller()
        if fails_check(labellers[ident], token):
            # A wrong token for a known id (a flood that has seen a labeller's link): refused
            # by the entry's quick check, with no scrypt work and no place in the queue, so it
            # cannot keep that labeller waiting. Its try stays used.
            return self._no_labeller()
        refused = self.checks.enter(address, ident, clean)
        if refused is not None:
            self.failures.give_back(address)  # no check was made: no try used
            if refused == "address":
                return self._refused(429, "too many tokens at once", 1, "from your address")
            if refused == "id":
                return self._refused(429, "too many tokens at once", 1, "for this link")
            return self._refused(503, "too busy to check tokens", 1, "at the moment")
        name = await self.checks.run(address, ident, lambda: check(labellers, token), clean)
        if not isinstance(name, str):
            return self._no_labeller()
        self.failures.give_back(address)
        key = self.sessions.open(name, ident)  # the id the token matched
        response = self._page(200, signing_in_page)
        https = request.secure or request.headers.get("X-Forwarded-Proto", "") == "https"
        response.set_cookie(self.cookie_name, key, httponly=True, samesite="Strict", secure=https)
        return response

    def _no_labeller(self) -> web.Response:
        return self._page(
            403,
            lambda nonce: refusal_page(
                "a labeller's link is needed",
                "Open the link with your token that whoever runs goldset serve gave you.",
                nonce,
            ),
        )

    def _refused(self, status: int, title: str, seconds: int, whence: str) -> web.Response:
        message = f"Too many token checks {whence}; open your link again in {seconds} s."
        response = self._page(status, lambda nonce: refusal_page(title, message, nonce))
        response.headers["Retry-After"] = str(seconds)
        return response

    def _issue_ticket(self, name: str, session: str) -> str:
        now = self.clock()
        self._tickets = {t: v for t, v in self._tickets.items() if v[2] > now}
        ticket = secrets.token_urlsafe(32)
        self._tickets[ticket] = (name, session, now + TICKET_SECONDS)
        return ticket

    def _redeem(self, ticket: str, request: web.Request) -> str | None:
        """The ticket's labeller, if it is fresh and unused and comes with the cookie of the
        session it was issued to (a ticket seen elsewhere opens nothing), from a page of this
        server (``same_origin``). Used up by any try."""
        name, session, expires = self._tickets.pop(ticket, (None, "", 0.0))
        cookie = request.cookies.get(self.cookie_name, "")
        proxied = self.behind_proxy and loopback(request.remote or "")
        if name is None or expires <= self.clock() or not same_origin(request, proxied):
            return None
        return (
            name
            if hmac.compare_digest(cookie, session) and self._session(request) == name
            else None
        )

    def _busy(self, name: str) -> bool:
        return name in self.live or self.is_busy(name)

    async def _let_closing_screen_go(self, name: str) -> None:
        """Wait while ``name`` has a screen that is closing (or starts to, within
        ``RELOAD_SECONDS``): a labeller's own reload must not be refused as a second tab. The
        screen is looked up afresh each time: after quick reloads, the one to wait for may be
        another page's, started meanwhile."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        while (process := self.live.get(name)) is not None:
            patience = STOP_SECONDS + 1.0 if process.closing else RELOAD_SECONDS
            if loop.time() - start > patience:
                return
            await asyncio.sleep(0.05)

    # --- pages ------------------------------------------------------------------------------
    def _page(self, status: int, render: Callable[[str], str]) -> web.Response:
        nonce = secrets.token_urlsafe(16)
        return web.Response(
            status=status,
            text=render(nonce),
            content_type="text/html",
            headers=security_headers(nonce),
        )

    async def handle_index(self, request: web.Request) -> web.Response:
        token = request.query.get("token")
        if token is not None:
            return await self._login(request, token)
        name = self._session(request)
        if name is None:
            return self._no_labeller()
        # A screen this server runs for them may be this very tab's, being reloaded: the browser
        # closes its websocket only once this page arrives, so the websocket decides (below).
        if name not in self.live and self.is_busy(name):
            return self._page(409, lambda nonce: refusal_page(*_already_open(name), nonce))
        ticket = self._issue_ticket(name, request.cookies.get(self.cookie_name, ""))
        return self._page(200, lambda nonce: judging_page(name, ticket, nonce))

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        name = self._redeem(request.match_info["ticket"], request)
        if name is None:
            raise web.HTTPForbidden(text="reload the page with your link to judge\n")
        websocket = web.WebSocketResponse(heartbeat=15)
        await websocket.prepare(request)
        await self._let_closing_screen_go(name)
        if request.transport is None or request.transport.is_closing():
            return websocket  # this page went while it waited (reloaded again): start nothing
        if self._busy(name):
            _, message = _already_open(name)
            with contextlib.suppress(ConnectionError, RuntimeError):  # that tab may be gone too
                await websocket.send_bytes(terminal_text(message))
                await websocket.close()
            return websocket
        width = clamped_size(request.query.get("width", "80"), 20, 1000, 80)
        height = clamped_size(request.query.get("height", "24"), 5, 500, 24)
        process = JudgingProcess(
            self.child_argv(name),
            name,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.download_manager,
        )
        self.live[name] = process
        try:
            await process.start(width, height)
            self.started += 1
            say(f"{name} opened a judging screen (process {process.pid})")
            await self.relay_browser(websocket, process)
        except Exception as exc:  # a broken browser message ends that session only
            say(f"{name}'s session ended on an error: {type(exc).__name__}: {exc}")
        finally:
            # Shielded: aiohttp cancels this handler when the browser goes away, and the screen
            # must still be closed in order (SIGHUP, flush) and the labeller freed.
            await asyncio.shield(self._closed(name, process, websocket))
        return websocket

    async def _closed(
        self, name: str, process: JudgingProcess, websocket: web.WebSocketResponse
    ) -> None:
        await process.stop()
        if self.live.get(name) is process:
            del self.live[name]
        outcome = process.refusal or how_it_ended(process.returncode)
        say(f"{name}'s judging screen closed ({outcome})")
        with contextlib.suppress(ConnectionError, RuntimeError):
            await websocket.close()

    async def close_all(self) -> None:
        """Close every open judging screen (each flushes and releases its labeller's lock)."""
        await asyncio.gather(*(process.stop() for process in list(self.live.values())))

    # --- running ----------------------------------------------------------------------------
    async def run(self, on_listening: Callable[[list[str]], None]) -> None:
        """Serve until SIGINT, SIGTERM or SIGHUP; then close every judging screen and return."""
        runner = web.AppRunner(await self.make_app(), access_log=None, handle_signals=False)
        await runner.setup()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(sig, stop.set)
        try:
            site = web.TCPSite(runner, self.host, self.port)
            try:
                await site.start()
            except OSError as exc:  # a port in use, a host name that does not resolve
                reason = exc.strerror or str(exc)
                raise InputError(
                    None, f"--host {self.host} --port {self.port}: cannot listen there: {reason}"
                ) from None
            on_listening([_url(address) for address in runner.addresses])
            await stop.wait()
            say("stopping: closing every open judging screen")
            await self.close_all()
        finally:
            await runner.cleanup()


def _already_open(name: str) -> tuple[str, str]:
    return (
        "already judging elsewhere",
        f"{name} already has a judging screen open (another tab, or a terminal); close it first,"
        " then reload this page.",
    )


def _url(address: object) -> str:
    host, port = address[0], address[1]  # type: ignore[index]
    host = f"[{host}]" if ":" in str(host) else host
    return f"http://{host}:{port}/"
