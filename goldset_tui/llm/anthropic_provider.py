"""The Anthropic Messages API (``POST /v1/messages``) through the ``anthropic`` SDK.

The SDK is imported here, when a provider is opened (``goldset_tui.llm.sdk.require``): the module
imported as ``anthropic`` holds the client class as ``anthropic.Anthropic``. The SDK's retries are
off: ``goldset_tui.llm.retry`` is the one policy. The Messages API takes no seed, and recent SDKs
no longer take a temperature either (the model's own sampling applies): each is sent only when the
installed SDK's ``messages.create`` names it, and ``sampling`` says which were, so what is recorded
is what was sent. Repeatability comes from the cache: a rerun asks nothing.
"""

from __future__ import annotations

import inspect
from typing import Any

from goldset_tui.llm.base import Completion, ProviderError
from goldset_tui.llm.sdk import require, translate


class AnthropicProvider:
    name = "anthropic"

    def __init__(
        self, model: str, key: str | None, *, base_url: str | None, timeout: float
    ) -> None:
        self._sdk = require("anthropic")
        self.model = model
        self._key = key
        options: dict[str, Any] = {"api_key": key, "max_retries": 0, "timeout": timeout}
        if base_url is not None:
            options["base_url"] = base_url
        self._client = self._sdk.Anthropic(**options)
        try:
            named = inspect.signature(self._client.messages.create).parameters
        except (TypeError, ValueError):
            named = {}  # type: ignore[assignment]
        self.sampling = frozenset(p for p in ("temperature", "seed") if p in named)

    def complete(
        self,
        system: str,
        prompt: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 512,
        seed: int | None = None,
    ) -> Completion:
        request: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens,
            "messages": [{"role": "user", "content": prompt}],
        }
        if "temperature" in self.sampling:
            request["temperature"] = temperature
        if system:
            request["system"] = system
        try:
            message = self._client.messages.create(**request)
        except Exception as exc:  # every SDK error becomes a ProviderError, scrubbed
            raise translate(self._sdk, exc, self.name, self._key) from None
        try:
            text = "".join(
                str(block.text)
                for block in message.content
                if getattr(block, "type", None) == "text"
            )
            usage = message.usage
            return Completion(
                text=text,
                input_tokens=int(usage.input_tokens or 0),
                output_tokens=int(usage.output_tokens or 0),
                model=str(message.model or self.model),
                fingerprint=None,
                request_id=getattr(message, "_request_id", None) or str(message.id or "") or None,
            )
        except (AttributeError, TypeError, ValueError) as exc:
            raise ProviderError(f"anthropic: an answer of an unexpected shape ({exc})") from None
