"""Language models behind one small interface: the providers goldset runs prompts through.

The interface (``goldset_tui.llm.provider``)::

    class Provider(Protocol):
        name: str     # "anthropic" or "openai" (any OpenAI-compatible endpoint)
        model: str    # the model asked for
        def complete(self, system: str, prompt: str, *, temperature: float = 0.0,
                     max_tokens: int = 512, seed: int | None = None) -> Completion: ...

    Completion(text, input_tokens, output_tokens, model, fingerprint, request_id)

``open_provider(ProviderConfig(...))`` makes one, with retries (``goldset_tui.llm.retry``)
around it; ``complete`` either returns a :class:`Completion` or raises
:class:`~goldset_tui.llm.provider.ProviderError`, whose text never holds the API key.
Around it: ``goldset_tui.llm.cost`` (prices, the tokens and cost so far, the budget),
``goldset_tui.llm.batch`` (many prompts, at most K at a time) and ``goldset_tui.llm.keys`` (where a
key may come from, and scrubbing it out of any text). docs/agreement.md ("A model as a judge")
says how `goldset judge --machine` uses them.

Contract: importing this package imports no SDK. The SDKs (the ``llm`` extra:
``pip install 'goldset-tui[llm]'``) are imported when a provider is opened; without them that
is one :class:`~goldset_tui.errors.InputError` naming the install line (exit 2), so a labeller's
install, which has no extra, still runs every other command. No Textual here either.
"""

from goldset_tui.llm.provider import (
    PROVIDERS,
    Completion,
    Provider,
    ProviderConfig,
    ProviderError,
    open_provider,
)

__all__ = [
    "PROVIDERS",
    "Completion",
    "Provider",
    "ProviderConfig",
    "ProviderError",
    "open_provider",
]
