"""One labeller's judging screen under `goldset serve`: a child process speaking Textual's
web-driver protocol, started with an argument list (no shell), stopped with SIGHUP (which the app
handles like a dropped terminal: flush, close the writer, exit). Moved out of ``serve.server``,
which keeps the login, the tickets and the websockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys

from goldset_tui.serve.textual_serve_adapter import AppProcess, to_int
from goldset_tui.ui import FRAME_RATE  # sets nothing but the frame-rate variable; no Textual

# How long a judging process may take to flush and exit after SIGHUP (its own watchdog leaves
# after 3 s) before it is killed; every grade shown as saved is on disk either way.
STOP_SECONDS = 10.0
# Lines a child may print before textual's "ready" line (a Python warning, say).
_PRELUDE_LINES = 20
_READY = b"__GANGLION__\n"
_STDERR_KEEP = 8192


def say(message: str) -> None:
    print(f"goldset serve: {message}", file=sys.stderr, flush=True)


class JudgingProcess(AppProcess):
    """One labeller's judging screen: a child process speaking Textual's web-driver protocol."""

    def __init__(self, argv: list[str], labeller: str, **kwargs) -> None:
        super().__init__(argv[0], **kwargs)
        self.argv = argv
        self.labeller = labeller
        self.returncode: int | None = None
        self.refusal: str | None = None  # the child's own error, when it never opened a screen
        self._hung_up = False
        self._leaving = False

    async def spawn(self, environment: dict[str, str]) -> asyncio.subprocess.Process:
        # textual-serve starts the command through a shell; here it is an argument list.
        # textual-serve pins TEXTUAL_FPS to 60; the judging screen's own cap (goldset_tui/ui)
        # applies in a browser too, unless the server was started with one of the user's own.
        environment["TEXTUAL_FPS"] = os.environ.get("TEXTUAL_FPS") or str(FRAME_RATE)
        return await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
            # Its own session: a Ctrl+C in the server's terminal reaches the server only, which
            # then closes each screen in order.
            start_new_session=True,
        )

    async def set_terminal_size(self, width: object, height: object) -> None:
        # The browser's numbers, passed on to the app: whole numbers in a sane range only.
        await super().set_terminal_size(
            clamped_size(width, 20, 1000, 80), clamped_size(height, 5, 500, 24)
        )

    @property
    def closing(self) -> bool:
        """Told to close (hung up), leaving on its own (q), or gone."""
        process = self.process
        gone = process is None or process.returncode is not None
        return self._hung_up or self._leaving or gone

    @property
    def pid(self) -> int | None:
        process = self.process
        return process.pid if process is not None else None

    async def run(self) -> None:
        """Relay the child's screen until it exits; then say why if it never opened one."""
        process = self.process
        assert process is not None and process.stdout is not None and process.stderr is not None
        stdout, stderr = process.stdout, process.stderr
        tail = bytearray()

        async def keep_stderr() -> None:
            while chunk := await stderr.read(4096):
                tail.extend(chunk)
                del tail[:-_STDERR_KEEP]

        stderr_task = asyncio.create_task(keep_stderr())
        ready = False
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionResetError):
            for _ in range(_PRELUDE_LINES):
                line = await stdout.readline()
                if not line or line == _READY:
                    ready = line == _READY
                    break
            relaying = ready
            while ready:
                kind = await stdout.readexactly(1)
                size = int.from_bytes(await stdout.readexactly(4), "big")
                payload = await stdout.readexactly(size)
                if not relaying:
                    continue  # the browser left: keep reading, so the app never blocks on output
                try:
                    await self._relay(kind, payload)
                except (ConnectionError, RuntimeError):
                    relaying = False
        self.returncode = await process.wait()
        await stderr_task
        # Closed now rather than a few callbacks after the exit: a loop that closes meanwhile
        # (the server's shutdown) would otherwise report the process's transport as unclosed.
        if process.stdin is not None:
            process.stdin.close()
            with contextlib.suppress(ConnectionError):
                await process.stdin.wait_closed()
        if not ready:
            lines = tail.decode("utf-8", "replace").strip().splitlines()
            self.refusal = lines[-1] if lines else how_it_ended(self.returncode)
            with contextlib.suppress(ConnectionError, RuntimeError):
                await self.remote_write_bytes(terminal_text(self.refusal))
        with contextlib.suppress(ConnectionError, RuntimeError):
            await self.remote_close()

    async def on_meta(self, data: bytes) -> None:
        # "exit": the app is leaving on its own (the labeller pressed q); let it finish.
        with contextlib.suppress(ValueError, AttributeError):
            self._leaving = self._leaving or json.loads(data).get("type") == "exit"
        await super().on_meta(data)

    async def _relay(self, kind: bytes, payload: bytes) -> None:
        if kind == b"D":
            await self.on_data(payload)
        elif kind == b"M":
            await self.on_meta(payload)
        elif kind == b"P":
            await self.on_packed(payload)

    async def stop(self) -> None:
        """Close the judging screen as a dropped terminal would: SIGHUP, then wait for it to
        exit. Every caller waits for the same exit (the server's shutdown and the websocket's
        end may both ask)."""
        task = self.task
        if task is None:
            return
        process = self.process
        if (
            process is not None
            and process.returncode is None
            and not (self._hung_up or self._leaving)
        ):
            self._hung_up = True
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGHUP)
        try:
            await asyncio.wait_for(asyncio.shield(task), STOP_SECONDS)
        except TimeoutError:
            if process is not None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
            await task


def clamped_size(value: object, low: int, high: int, default: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        return default
    number = to_int(value, default) if isinstance(value, str) else value
    return min(max(number, low), high)


def how_it_ended(returncode: int | None) -> str:
    """How a judging process ended, for the log: a negative status is a signal's number."""
    if returncode is not None and returncode < 0:
        try:
            return f"ended by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"ended by signal {-returncode}"
    return f"exit status {returncode}"


def terminal_text(message: str) -> bytes:
    # Shown in the browser's terminal: the child's one-line error, printable characters only.
    printable = "".join(ch if ch.isprintable() else "?" for ch in message)
    return f"\x1b[2J\x1b[H\r\n  {printable}\r\n".encode()
