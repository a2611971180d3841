"""Retries with exponential backoff and jitter, around any provider.

What is retried: a :class:`~goldset_tui.llm.base.ProviderError` marked ``retryable`` (429 rate
limited, 529 overloaded, any 5xx, no answer at all). How long to wait: what the server asked for
in ``retry-after`` when it said (plus a little jitter, so that K threads told the same second do
not all come back in the same instant); otherwise ``base * 2**attempt`` capped at ``cap``, with
"full jitter" (a uniform draw from zero to that), which spreads clients that failed together.
A server's ``retry-after`` beyond ``max_wait`` is not waited out: the error is raised (fatal), so
a run is not silently parked for an hour; the run can be resumed later.

After ``attempts`` tries the last error is raised, marked fatal: the endpoint is not answering,
and every other prompt would spend its own retries learning the same.

The SDKs' own retries are switched off (``max_retries=0``) so this is the one policy, the same
for both providers, and testable: ``sleep`` and ``random`` are parameters.
"""

from __future__ import annotations

import random as _random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from goldset_tui.llm.base import Completion, Provider, ProviderError


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 6  # tries in all, the first included
    base: float = 1.0  # seconds before the first retry (before jitter)
    cap: float = 60.0  # the longest computed wait
    max_wait: float = 300.0  # the longest retry-after honoured

    def delay(self, attempt: int, retry_after: float | None, draw: float) -> float:
        """Seconds to wait before try ``attempt + 1`` (``attempt`` counts from 0); ``draw`` is
        uniform in [0, 1)."""
        if retry_after is not None:
            return retry_after + draw * min(1.0, 0.1 * retry_after)
        return draw * min(self.cap, self.base * 2.0**attempt)


class Retrying:
    """A provider that retries ``inner`` under ``policy``. ``retries`` counts every retry made
    (thread-safe), for the progress line."""

    def __init__(
        self,
        inner: Provider,
        policy: RetryPolicy,
        *,
        sleep: Callable[[float], None] = time.sleep,
        random: Callable[[], float] = _random.random,
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.model = inner.model
        self.sampling = inner.sampling
        self.policy = policy
        self._sleep = sleep
        self._random = random
        self._lock = threading.Lock()
        self.retries = 0

    def complete(
        self,
        system: str,
        prompt: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 512,
        seed: int | None = None,
    ) -> Completion:
        attempt = 0
        while True:
            try:
                return self.inner.complete(
                    system, prompt, temperature=temperature, max_tokens=max_tokens, seed=seed
                )
            except ProviderError as exc:
                if not exc.retryable or exc.fatal:
                    raise
                if attempt + 1 >= self.policy.attempts:
                    raise ProviderError(
                        f"{exc.message} (gave up after {self.policy.attempts} tries)",
                        status=exc.status,
                        retryable=True,
                        request_id=exc.request_id,
                        fatal=True,
                    ) from None
                if exc.retry_after is not None and exc.retry_after > self.policy.max_wait:
                    raise ProviderError(
                        f"{exc.message} (the server asks to wait {exc.retry_after:.0f} s, "
                        f"longer than {self.policy.max_wait:.0f} s: resume later)",
                        status=exc.status,
                        retryable=True,
                        request_id=exc.request_id,
                        fatal=True,
                    ) from None
                wait = self.policy.delay(attempt, exc.retry_after, self._random())
                with self._lock:
                    self.retries += 1
                self._sleep(wait)
                attempt += 1
