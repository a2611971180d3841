"""The SDKs of the ``llm`` extra, imported only when a provider is opened; their errors in ours.

A labeller installs goldset without extras; every command but the ones that run a model works
without the SDKs, and those say on one line what to install (exit 2), never a traceback.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from types import ModuleType

from goldset_tui.errors import InputError
from goldset_tui.llm.base import ProviderError, retryable_status
from goldset_tui.llm.keys import scrub

INSTALL = "pip install 'goldset-tui[llm]'"


def require(module: str) -> ModuleType:
    """The SDK module ``module`` (``anthropic``, ``openai``), or InputError naming INSTALL."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(
            None, f"running a model needs the {module} SDK, in the llm extra: {INSTALL}"
        ) from None


def require_installed(module: str) -> None:
    """InputError naming INSTALL unless ``module`` can be imported (it is not imported: finding
    it is enough, and costs nothing)."""
    import importlib.util

    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a module set to None in sys.modules, as tests do
        found = False
    if not found:
        raise InputError(
            None, f"running a model needs the {module} SDK, in the llm extra: {INSTALL}"
        )


def retry_after(headers: Mapping[str, str]) -> float | None:
    """The wait a server asked for: ``retry-after-ms`` (milliseconds), else ``retry-after`` in
    seconds or as an HTTP date. None when it asked for nothing readable."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis) / 1000.0
        except ValueError:
            value = -1.0
        if value >= 0 and math.isfinite(value):
            return value
    text = headers.get("retry-after")
    if text is None:
        return None
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
        return max(0.0, seconds)
    return seconds if seconds >= 0 and math.isfinite(seconds) else None


def _detail(body: object) -> str:
    """The server's own words for an error, from its JSON body (both APIs nest them under
    ``error.message``), shortened."""
    message: object = body
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message", inner) if isinstance(inner, dict) else inner
    text = " ".join(str(message).split()) if message is not None else ""
    return text[:200] + ("..." if len(text) > 200 else "")


def translate(sdk: ModuleType, exc: Exception, provider: str, key: str | None) -> ProviderError:
    """An SDK exception as a ProviderError, its text scrubbed of ``key``. Anything the SDK raises
    that is neither an HTTP status nor a connection failure (a response it could not parse) is a
    failure of this prompt alone."""
    status_error = getattr(sdk, "APIStatusError", ())
    connection_error = getattr(sdk, "APIConnectionError", ())
    if isinstance(exc, status_error):
        status = int(getattr(exc, "status_code", 0))
        response = getattr(exc, "response", None)
        headers: Mapping[str, str] = getattr(response, "headers", None) or {}
        request_id = getattr(exc, "request_id", None) or headers.get("request-id")
        detail = _detail(getattr(exc, "body", None))
        return ProviderError(
            scrub(f"{provider} answered HTTP {status}: {detail}".rstrip(": "), [key]),
            status=status,
            retryable=retryable_status(status),
            retry_after=retry_after(headers),
            request_id=request_id,
        )
    if isinstance(exc, connection_error):
        kind = "timed out" if "Timeout" in type(exc).__name__ else "could not be reached"
        return ProviderError(f"{provider}: the server {kind}", retryable=True)
    return ProviderError(scrub(f"{provider}: {type(exc).__name__}: {exc}", [key])[:300])
