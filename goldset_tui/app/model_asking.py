"""Asking a model about many items, durably: what `goldset judge --machine` and `goldset synth`
share once each has rendered its texts.

A run holds one rendered text per key; every key the answer log has no answer for is asked, at
most ``concurrency`` at a time, while the budget allows and no fatal provider error has been
seen. Each answer is appended to the answer log (``goldset_tui.store.answers``) before it counts,
so a killed run resumes where it stopped and a rerun asks nothing. What differs between the two
commands (the texts, what an answer means, what is written at the end) stays in their modules.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from goldset_tui.llm.base import Completion, Provider
    from goldset_tui.llm.cost import Budget, Progress
    from goldset_tui.llm.provider import ProviderConfig
    from goldset_tui.store.answers import AnswerLog

Key = tuple[str, str, str]  # two ids of the item asked about, the sha256 of the text sent


class AskingRequest(Protocol):
    @property
    def provider(self) -> ProviderConfig: ...
    @property
    def temperature(self) -> float: ...
    @property
    def max_tokens(self) -> int: ...
    @property
    def seed(self) -> int | None: ...
    @property
    def concurrency(self) -> int: ...


class AskingResult(Protocol):
    fatal: str | None
    refusals: Counter[str]


def answer_record(
    answer: Completion, key: Key, prompt_sha256: str, model: str, sampling: dict[str, float | int]
) -> dict[str, Any]:
    """The answer log's record of one answer: what was asked, of whom, and what came back."""
    from goldset_tui.store.files import now_iso

    return {
        "query_id": key[0],
        "doc_id": key[1],
        "input_sha256": key[2],
        "prompt_sha256": prompt_sha256,
        "model_asked": model,
        "text": answer.text,
        "input_tokens": answer.input_tokens,
        "output_tokens": answer.output_tokens,
        "model": answer.model,
        "fingerprint": answer.fingerprint,
        "request_id": answer.request_id,
        "sampling": sampling,
        "time": now_iso(),
    }


class ModelRun:
    """The asking loop; a subclass sets these attributes in its ``__init__``."""

    request: AskingRequest
    model: str
    prompt_sha256: str
    texts: dict[Key, str]
    known: dict[Key, dict[str, Any]]
    progress: Progress
    result: AskingResult
    meter: Any  # goldset_tui.llm.cost.Meter
    budget: Budget
    on_progress: Callable[[Any], None]
    _provider: Provider | None

    def __init__(self) -> None:
        self._lock = threading.Lock()  # guards result.fatal, read by the workers
        self._open_lock = threading.Lock()  # the first requests start together, on workers

    @property
    def provider(self) -> Provider:
        """The provider, opened on first use (``check_provider`` has vouched for it)."""
        with self._open_lock:
            if self._provider is None:
                from goldset_tui.llm.provider import open_provider

                self._provider = open_provider(self.request.provider)
            return self._provider

    def _sampling(self) -> dict[str, float | int]:
        """The sampling parameters sent with each request (recorded with its answer)."""
        sent: dict[str, float | int] = {}
        if "temperature" in self.provider.sampling:
            sent["temperature"] = self.request.temperature
        if "seed" in self.provider.sampling and self.request.seed is not None:
            sent["seed"] = self.request.seed
        return sent

    def _may_start(self, started: int, in_flight: int) -> bool:
        with self._lock:
            if self.result.fatal is not None:
                return False
        return self.budget.may_start(started, in_flight, self.meter)

    def _complete(self, key: Key) -> Completion:
        return self.provider.complete(
            "",
            self.texts[key],
            temperature=self.request.temperature,
            max_tokens=self.request.max_tokens,
            seed=self.request.seed,
        )

    def _answered(self, key: Key) -> None:
        """Called once an answer to ``key`` is durable and counted (a subclass may read it)."""

    def _ask(self, asks: list[Key], log: AnswerLog) -> None:
        from goldset_tui.llm.base import Completion, ProviderError
        from goldset_tui.llm.batch import run_limited

        progress = self.progress
        outcomes = run_limited(
            asks, self._complete, concurrency=self.request.concurrency, may_start=self._may_start
        )
        for key, outcome in outcomes:
            if isinstance(outcome, Completion):
                record = answer_record(
                    outcome, key, self.prompt_sha256, self.model, self._sampling()
                )
                log.add(record)  # durable: from here on it counts
                self.known[key] = record
                self.meter.add(outcome)
                progress.answered += 1
                self._answered(key)
            elif isinstance(outcome, ProviderError):
                self.meter.add_failed()
                if outcome.fatal:
                    with self._lock:
                        self.result.fatal = self.result.fatal or outcome.message
                else:
                    progress.failed += 1
                    self.result.refusals[f"not answered: {outcome.message}"] += 1
            else:
                raise outcome  # a bug of ours, not the provider's: never swallowed
            progress.input_tokens = self.meter.input_tokens
            progress.output_tokens = self.meter.output_tokens
            progress.cost = self.meter.cost
            progress.retries = int(getattr(self._provider, "retries", 0))
            self.on_progress(progress)
        progress.cost = self.meter.cost
