"""The one module that touches textual-serve, and the only one that uses its private names.

Written against textual-serve 1.1.3 (pyproject allows ``>=1.1,<2``). textual-serve runs a Textual
app as a subprocess per websocket (``AppService``) behind an aiohttp ``Server``, but offers no
public hook for the three things goldset changes: how the process is started (an argument list
in its own session, not a shell command), the frame rate in its environment, and who may open a
websocket at all. So goldset subclasses both classes here and uses these private names of theirs:

- ``AppService._open_app_process(width, height)``: the coroutine ``AppService.start`` awaits to
  start the process, before it runs ``run`` in a task. Overridden here: it asks the subclass to
  ``spawn`` the process (``JudgingProcess`` in ``serve.server``).
- ``AppService._build_environment(width, height)``: the environment textual-serve gives its apps
  (the web driver, the terminal size, truecolor). Built by textual-serve, then adjusted by
  ``spawn``.
- ``AppService._process``: the running process. Set here, as textual-serve's own ``run`` expects;
  read through ``AppProcess.process``.
- ``AppService._stdin``: the process's stdin, behind the public ``stdin`` property that
  ``send_bytes`` and ``send_meta`` write the browser's keys and sizes to. Set here.
- ``AppService._task``: the task ``start`` runs ``run`` in; read through ``AppProcess.task`` to
  wait for the process's end.
- ``Server._process_messages(websocket, app_service)``: the loop that passes the browser's keys,
  sizes, focus changes and pings on to the process; called through ``WebServer.relay_browser``.

The public names used (``to_int``, ``Server.statics_path``, ``Server.download_manager``, the
``on_data``/``on_meta``/``on_packed`` callbacks) are textual-serve's documented surface.
``tests/unit/serve/test_textual_serve_contract.py`` checks every name above against the installed
textual-serve, so an upgrade that renames or reshapes one fails there, by name, rather than at
the first browser session. After an upgrade, read textual-serve's ``app_service.py`` and
``server.py`` again and update this docstring's version.
"""

from __future__ import annotations

import asyncio
from asyncio.subprocess import Process

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

WRITTEN_AGAINST = "1.1.3"

__all__ = ["WRITTEN_AGAINST", "AppProcess", "WebServer", "to_int"]


class AppProcess(AppService):
    """textual-serve's app service with the process started by ``spawn`` instead of a shell."""

    async def spawn(self, environment: dict[str, str]) -> Process:
        """Start the app with ``environment`` (textual-serve's, for this size), stdin, stdout and
        stderr piped."""
        raise NotImplementedError

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        environment = self._build_environment(width=width, height=height)
        self._process = process = await self.spawn(environment)
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    @property
    def process(self) -> Process | None:
        """The app's process once started (it may have exited since)."""
        return self._process

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The task relaying the app's output (``run``) once started."""
        return self._task


class WebServer(Server):
    """textual-serve's server, with its browser-message loop reachable by name."""

    async def relay_browser(self, websocket: web.WebSocketResponse, service: AppService) -> None:
        """Pass the browser's keys, sizes, focus changes and pings to ``service`` until the
        websocket closes."""
        await self._process_messages(websocket, service)
