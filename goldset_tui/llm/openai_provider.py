"""OpenAI chat completions (``POST /v1/chat/completions``) through the ``openai`` SDK: OpenAI
itself, or any server that speaks the same API at ``base_url`` (vLLM, llama.cpp's server,
Ollama's ``/v1``).

A local server usually needs no key; the SDK insists on one, so a placeholder is sent (it is not a
secret). The SDK's retries are off: ``goldset_tui.llm.retry`` is the one policy. ``seed`` is sent
(OpenAI and vLLM honour it); ``system_fingerprint``, when the server reports one, is recorded as
the backend's version beside the model.
"""

from __future__ import annotations

from typing import Any

from goldset_tui.llm.base import Completion, ProviderError
from goldset_tui.llm.sdk import require, translate

NO_KEY = "no-key"


class OpenAIProvider:
    name = "openai"
    sampling = frozenset({"temperature", "seed"})

    def __init__(
        self, model: str, key: str | None, *, base_url: str | None, timeout: float
    ) -> None:
        self._sdk = require("openai")
        self.model = model
        self._key = key
        options: dict[str, Any] = {"api_key": key or NO_KEY, "max_retries": 0, "timeout": timeout}
        if base_url is not None:
            options["base_url"] = base_url
        self._client = self._sdk.OpenAI(**options)

    def complete(
        self,
        system: str,
        prompt: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 512,
        seed: int | None = None,
    ) -> Completion:
        messages = [{"role": "system", "content": system}] if system else []
        messages.append({"role": "user", "content": prompt})
        request: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": temperature,
            "max_tokens": max_tokens,
        }
        if seed is not None:
            request["seed"] = seed
        try:
            answer = self._client.chat.completions.create(**request)
        except Exception as exc:  # every SDK error becomes a ProviderError, scrubbed
            raise translate(self._sdk, exc, self.name, self._key) from None
        try:
            choice = answer.choices[0] if answer.choices else None
            text = (choice.message.content or "") if choice is not None else ""
            usage = answer.usage
            return Completion(
                text=str(text),
                input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
                model=str(answer.model or self.model),
                fingerprint=getattr(answer, "system_fingerprint", None) or None,
                request_id=getattr(answer, "_request_id", None) or str(answer.id or "") or None,
            )
        except (AttributeError, TypeError, ValueError, IndexError) as exc:
            raise ProviderError(f"openai: an answer of an unexpected shape ({exc})") from None
