"""The provider interface's nouns: :class:`Provider`, :class:`Completion`, :class:`ProviderError`.

Kept apart from ``goldset_tui.llm.provider`` (which opens one) so that the retry wrapper and each
SDK's adapter can import them without importing each other. Module ``goldset_tui.llm.provider``
states the contract.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Completion:
    """One answer. ``model`` is the model the provider says answered (a dated snapshot where the
    request named an alias: the version to record); ``fingerprint`` the backend configuration it
    reports beside it (OpenAI's ``system_fingerprint``; None where there is none)."""

    text: str
    input_tokens: int
    output_tokens: int
    model: str
    fingerprint: str | None
    request_id: str | None


class ProviderError(Exception):
    """A request that did not give a completion. The message is safe to show (no key in it).

    ``status``: the HTTP status (None: no answer at all: a connection refused, a timeout).
    ``retryable``: worth trying again later (429, 529, 5xx, no answer); ``retry_after``: the
    seconds the server asked for (its ``retry-after``), if it said. ``fatal``: no other prompt
    will fare better (the key refused, the model unknown, retries used up): stop the run.
    Otherwise the failure belongs to this prompt alone (too long, refused by the server)."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
        request_id: str | None = None,
        fatal: bool | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after
        self.request_id = request_id
        self.fatal = fatal if fatal is not None else (status in FATAL_STATUSES)


# The key refused (401), not allowed (403), no such model or endpoint (404): every other prompt
# would get the same answer, so the run stops instead of refusing each pair in turn.
FATAL_STATUSES = frozenset({401, 403, 404})


def retryable_status(status: int) -> bool:
    """429 (rate limited), 529 (Anthropic: overloaded), any 5xx (the server's fault), and 408
    (the server timed the request out): worth another try after a wait."""
    return status in (408, 429) or status >= 500


class Provider(Protocol):
    """What every provider offers (see the module's contract)."""

    name: str  # "anthropic" or "openai"
    model: str  # the model asked for
    sampling: frozenset[str]  # which of "temperature", "seed" this provider sends (recorded)

    def complete(
        self,
        system: str,
        prompt: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 512,
        seed: int | None = None,
    ) -> Completion:
        """Send ``system`` (may be empty) and one user message ``prompt``; ``seed`` where the
        provider takes one (OpenAI-compatible servers; the Messages API has none: ignored)."""
        ...
