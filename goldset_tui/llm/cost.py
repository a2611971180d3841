"""What a run costs: tokens counted by the provider, priced per million, and the budget.

Prices are USD per million input and output tokens. The built-in table holds the list prices of a
few common models as they stood when it was written; prices change, so ``--price IN,OUT``
overrides it, and a model it does not know (a local vLLM or Ollama model, a new release) has no
price: its cost shows as unknown, and a ``--max-cost`` budget is refused rather than enforced on
a guess. A model name matches the longest entry it starts with (``claude-sonnet-4-5-20250929``
is priced as ``claude-sonnet-4``).

The budget. ``max_pairs`` counts requests started (a cached answer costs nothing and counts
nothing). ``max_cost``: a request's cost is known only once it has answered, so no new request
starts once the cost so far plus the expected cost of those still running (each at the mean cost
of the answers so far) reaches the budget; until a first answer sets that mean, one request at a
time. The run can overshoot by the spread of the requests in flight, never by a whole batch.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from goldset_tui.errors import InputError
from goldset_tui.llm.base import Completion


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


@dataclass
class Progress:
    """What a run of requests has done so far, as its progress line shows it: the pairs (or
    documents) in all, those answered from the cache, those answered by this run, those that
    failed, the tokens and cost counted, and the retries. The judge adds its own counts."""

    total: int = 0
    cached: int = 0
    answered: int = 0
    failed: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = 0.0
    retries: int = 0

    @property
    def done(self) -> int:
        return self.cached + self.answered


# List prices (USD per million tokens, input and output) when this table was written.
PRICES: dict[str, Price] = {
    "claude-opus-4-5": Price(5.0, 25.0),
    "claude-opus-4-6": Price(5.0, 25.0),
    "claude-opus-4": Price(15.0, 75.0),
    "claude-sonnet-4": Price(3.0, 15.0),
    "claude-3-7-sonnet": Price(3.0, 15.0),
    "claude-haiku-4-5": Price(1.0, 5.0),
    "claude-3-5-haiku": Price(0.8, 4.0),
    "claude-3-haiku": Price(0.25, 1.25),
    "gpt-4o-mini": Price(0.15, 0.6),
    "gpt-4o": Price(2.5, 10.0),
    "gpt-4.1-nano": Price(0.1, 0.4),
    "gpt-4.1-mini": Price(0.4, 1.6),
    "gpt-4.1": Price(2.0, 8.0),
}


def price_for(model: str, override: Price | None = None) -> Price | None:
    """``override`` if given, else the longest entry of PRICES ``model`` starts with, else None."""
    if override is not None:
        return override
    known = [name for name in PRICES if model.startswith(name)]
    return PRICES[max(known, key=len)] if known else None


def parse_price(text: str) -> Price:
    """``IN,OUT``: USD per million input and output tokens, e.g. ``3,15`` (``0,0`` for a model
    that costs nothing to run: a local one)."""
    parts = [p.strip() for p in text.split(",")]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        values = []
    if len(values) != 2 or any(not (v >= 0 and v < float("inf")) for v in values):
        raise InputError(
            None,
            f"--price {text!r}: expected IN,OUT in USD per million input and output tokens, "
            "e.g. 3,15",
            column="price",
        )
    return Price(values[0], values[1])


class Meter:
    """Tokens and cost so far, added to from any thread. ``cost`` is None when the price is
    unknown."""

    def __init__(self, price: Price | None) -> None:
        self.price = price
        self._lock = threading.Lock()
        self.requests = 0
        self.input_tokens = 0
        self.output_tokens = 0

    def add(self, completion: Completion) -> None:
        with self._lock:
            self.requests += 1
            self.input_tokens += completion.input_tokens
            self.output_tokens += completion.output_tokens

    def add_failed(self) -> None:
        """A request that gave no completion (billed nothing we can count)."""
        with self._lock:
            self.requests += 1

    @property
    def cost(self) -> float | None:
        if self.price is None:
            return None
        with self._lock:
            return self.price.cost(self.input_tokens, self.output_tokens)


@dataclass(frozen=True)
class Budget:
    max_pairs: int | None = None
    max_cost: float | None = None

    def check(self, price: Price | None, model: str) -> None:
        """Refuse a budget that cannot be kept: a cost limit with no price to count it by."""
        if self.max_pairs is not None and self.max_pairs < 0:
            raise InputError(None, "--max-pairs must be 0 or more", column="max-pairs")
        if self.max_cost is not None:
            if not self.max_cost >= 0:
                raise InputError(None, "--max-cost must be 0 or more", column="max-cost")
            if price is None:
                raise InputError(
                    None,
                    f"--max-cost needs a price for {model!r}, which the built-in table does not "
                    "know: give --price IN,OUT (USD per million input and output tokens)",
                    column="max-cost",
                )

    def may_start(self, started: int, in_flight: int, meter: Meter) -> bool:
        """Whether one more request may start (see the module's docstring)."""
        if self.max_pairs is not None and started >= self.max_pairs:
            return False
        if self.max_cost is None:
            return True
        spent = meter.cost or 0.0
        answered = meter.requests
        if answered == 0:
            return in_flight == 0 and spent < self.max_cost
        mean = spent / answered
        return spent + (in_flight + 1) * mean <= self.max_cost
