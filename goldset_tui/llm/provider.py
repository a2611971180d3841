"""One small interface in front of every language model goldset runs prompts through.

Contract. A :class:`Provider` answers one prompt at a time: :meth:`Provider.complete` returns a
:class:`Completion` (the text, the tokens counted by the provider, the model it says it ran and
its request id) or raises :class:`ProviderError`. Nothing else escapes it: an SDK's exceptions
are turned into a ``ProviderError`` whose message has been scrubbed of the API key
(``goldset_tui.llm.keys.scrub``), so an error can be printed, logged or recorded as it is. A
provider is safe to call from several threads at once (the SDK clients are); how many run at
once is the caller's choice (``goldset_tui.llm.batch``).

:func:`open_provider` is the one way to make one: it reads the key (environment or a key file,
never a command-line value), imports the SDK (a missing extra is one ``InputError`` naming the
install line) and wraps the provider in the retry policy (``goldset_tui.llm.retry``).

Providers: ``anthropic`` (the Messages API; ``ANTHROPIC_API_KEY``, ``ANTHROPIC_MODEL`` when no
model is given) and ``openai``: OpenAI's chat completions, or any server speaking them (vLLM,
llama.cpp's server, Ollama) through ``base_url`` (``OPENAI_API_KEY``; a local server with a
``base_url`` may need no key).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from goldset_tui.errors import InputError
from goldset_tui.llm.base import Completion, Provider, ProviderError
from goldset_tui.llm.retry import RetryPolicy

__all__ = [
    "KEY_VARIABLES",
    "MODEL_VARIABLES",
    "PROVIDERS",
    "Completion",
    "Provider",
    "ProviderConfig",
    "ProviderError",
    "check_provider",
    "open_provider",
    "resolve_model",
]

PROVIDERS = ("anthropic", "openai")
# Where each provider's key and default model come from (the names the SDKs' own docs use).
KEY_VARIABLES = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
MODEL_VARIABLES = {"anthropic": "ANTHROPIC_MODEL"}


@dataclass(frozen=True)
class ProviderConfig:
    """What to open. ``model`` None: ``ANTHROPIC_MODEL`` for anthropic, else refused.
    ``api_key_file``: a file holding the key (its first line), named on the command line; without
    it the key comes from the provider's variable (``KEY_VARIABLES``). ``environ``: the
    environment to read (None: ``os.environ``; tests give their own)."""

    provider: str = "anthropic"
    model: str | None = None
    base_url: str | None = None
    api_key_file: str | Path | None = None
    timeout: float = 120.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    environ: Mapping[str, str] | None = None


def resolve_model(config: ProviderConfig) -> str:
    environ = os.environ if config.environ is None else config.environ
    model = config.model
    if model is None and config.provider in MODEL_VARIABLES:
        model = environ.get(MODEL_VARIABLES[config.provider]) or None
    if model is None or not model.strip():
        where = MODEL_VARIABLES.get(config.provider)
        raise InputError(
            None, "name the model" + (f" (or set {where})" if where else ""), column="model"
        )
    return model.strip()


SDK_MODULES = {"anthropic": "anthropic", "openai": "openai"}


def _known_provider(config: ProviderConfig) -> None:
    """Refuse a provider goldset does not know (``PROVIDERS``)."""
    if config.provider not in PROVIDERS:
        raise InputError(
            None,
            f"unknown provider {config.provider!r} (one of {', '.join(PROVIDERS)})",
            column="provider",
        )


def _provider_key(config: ProviderConfig) -> str | None:
    """The provider's key, from ``api_key_file`` or its variable (``KEY_VARIABLES``). A local
    OpenAI-compatible server (Ollama, llama.cpp) given by ``base_url`` usually wants no key at
    all: there a missing one is None, not an error."""
    from goldset_tui.llm.keys import read_key

    environ = os.environ if config.environ is None else config.environ
    optional = config.provider == "openai" and config.base_url is not None
    return read_key(
        KEY_VARIABLES[config.provider], config.api_key_file, environ=environ, optional=optional
    )


def check_provider(config: ProviderConfig) -> str:
    """Everything :func:`open_provider` would refuse, without importing the SDK (a second of CPU
    for the Anthropic one): the provider's name, the model (returned), the SDK installed, the
    key. A run checks this before it makes a store, and opens the provider only to ask."""
    from goldset_tui.llm.sdk import require_installed

    _known_provider(config)
    model = resolve_model(config)
    require_installed(SDK_MODULES[config.provider])
    _provider_key(config)
    return model


def open_provider(config: ProviderConfig) -> Provider:
    """The provider ``config`` names, its SDK imported, its key read, retries around it."""
    from goldset_tui.llm.retry import Retrying

    _known_provider(config)
    model = resolve_model(config)
    key = _provider_key(config)
    inner: Provider
    if config.provider == "anthropic":
        from goldset_tui.llm.anthropic_provider import AnthropicProvider

        inner = AnthropicProvider(model, key, base_url=config.base_url, timeout=config.timeout)
    else:
        from goldset_tui.llm.openai_provider import OpenAIProvider

        inner = OpenAIProvider(model, key, base_url=config.base_url, timeout=config.timeout)
    return Retrying(inner, config.retry)
