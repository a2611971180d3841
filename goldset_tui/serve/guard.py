"""What `goldset serve` lets out beyond its pages, and which websockets it lets in.

- **Logs.** A labeller's first URL carries their token and a websocket's URL a ticket, so nothing
  a client sends may reach a log. The server writes no access log, but aiohttp's own loggers
  still speak on errors: a request line over 8,190 bytes, for one, is logged by
  ``aiohttp.server`` with the parser's exception, whose text quotes the line's first 100 bytes,
  token included. :func:`quiet_logs` puts a filter on every logger aiohttp and textual-serve
  write to that keeps each record's fixed text and the exception's type and drops what came from
  the request: the arguments, the exception's text and its traceback (and an access log's
  lines, all of the request, are dropped whole).
- **The Server header.** aiohttp names its own and Python's versions in every answer; a client
  learns which known flaws to try. :func:`plain_server_header` names goldset alone, on every
  answer, the ones aiohttp writes itself for a request it could not read included.
- **The websocket's Origin.** A browser sends cookies with a websocket to their site whatever
  page opened it, so a page on another site could open one in a labeller's name (cross-site
  websocket hijacking). :func:`same_origin` accepts an upgrade only from a page of this server:
  an Origin header naming the host the request was sent to. A request without Origin comes from
  no browser (every browser sends one with a websocket); such a client could write any Origin, so
  refusing it would add nothing, and it still needs a ticket tied to a session's cookie.
"""

from __future__ import annotations

import ipaddress
import logging
import re
from urllib.parse import urlsplit

import aiohttp.web_response
from aiohttp import web

SERVER_HEADER = "goldset"
# The loggers aiohttp's server side and textual-serve write to.
LOGGERS = (
    "aiohttp.access",
    "aiohttp.internal",
    "aiohttp.server",
    "aiohttp.web",
    "aiohttp.websocket",
    "textual-serve",
)
_PLACEHOLDER = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[a-zA-Z%]")


class WithoutRequestData(logging.Filter):
    """Keeps a record's fixed text and its exception's type; drops everything else."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name == "aiohttp.access":
            return False  # every line of it is a request's (off anyway: this is in case)
        text = str(record.msg)
        if record.args:
            text = _PLACEHOLDER.sub(lambda m: "%" if m.group() == "%%" else "(withheld)", text)
        if record.exc_info and record.exc_info[0] is not None:
            text += f": {record.exc_info[0].__name__} (details withheld: they quote the request)"
        record.msg, record.args = text, None
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        return True


_FILTER = WithoutRequestData()


def quiet_logs() -> None:
    """Filter every logger the server's libraries write to (once per process)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)


async def _name_goldset(request: web.Request, response: web.StreamResponse) -> None:
    response.headers["Server"] = SERVER_HEADER


def plain_server_header(app: web.Application) -> None:
    """``Server: goldset`` on every answer of ``app``, and on aiohttp's own error answers."""
    app.on_response_prepare.append(_name_goldset)
    # A request aiohttp could not parse never reaches the app: its 400 takes this default, which
    # aiohttp reads from its module at each answer.
    aiohttp.web_response.SERVER_SOFTWARE = SERVER_HEADER


def loopback(address: str) -> bool:
    """Whether ``address`` is this machine's (where a reverse proxy's requests come from)."""
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def same_origin(request: web.Request, forwarded_host: bool = False) -> bool:
    """Whether a websocket upgrade comes from a page of this server (or from no browser).

    The page's origin is the host the browser sent the request to: the Host header, or behind a
    reverse proxy that rewrites Host (``forwarded_host``), the proxy's last X-Forwarded-Host."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    host = request.headers.get("Host", "")
    if forwarded_host:
        hops = ",".join(request.headers.getall("X-Forwarded-Host", [])).split(",")
        host = next((h.strip() for h in reversed(hops) if h.strip()), host)
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(host) and parts.netloc.lower() == host.lower()
