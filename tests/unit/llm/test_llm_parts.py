"""The small parts around a provider: retry-after read as the server may write it, the price
table and the budget, scrubbing keys, and the batch runner's limit."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from goldset_tui.errors import InputError
from goldset_tui.llm.base import Completion
from goldset_tui.llm.batch import run_limited
from goldset_tui.llm.cost import Budget, Meter, Price, parse_price, price_for
from goldset_tui.llm.keys import HIDDEN, scrub
from goldset_tui.llm.sdk import retry_after


def test_retry_after_forms() -> None:
    assert retry_after({"retry-after": "3"}) == 3.0
    assert retry_after({"retry-after": "0.5"}) == 0.5
    assert retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({"retry-after": "-1"}) is None
    assert retry_after({}) is None
    later = datetime.now(UTC) + timedelta(seconds=120)
    seconds = retry_after({"retry-after": format_datetime(later, usegmt=True)})
    assert seconds is not None and 100 < seconds <= 120
    past = datetime.now(UTC) - timedelta(seconds=120)
    assert retry_after({"retry-after": format_datetime(past, usegmt=True)}) == 0.0


def test_prices_by_longest_prefix_and_overridden() -> None:
    assert price_for("claude-sonnet-4-5-20250929") == Price(3.0, 15.0)
    assert price_for("claude-opus-4-5-20251101") == Price(5.0, 25.0)  # not claude-opus-4's
    assert price_for("gpt-4o-mini-2024-07-18") == Price(0.15, 0.6)  # not gpt-4o's
    assert price_for("llama3.1:8b") is None
    assert price_for("llama3.1:8b", Price(0, 0)) == Price(0, 0)
    # 1,000 input and 200 output tokens at 3 and 15 USD per million.
    assert Price(3.0, 15.0).cost(1000, 200) == pytest.approx(0.003 + 0.003)


@pytest.mark.parametrize("text", ["3", "3,15,1", "a,b", "-1,2", "inf,1", "nan,1"])
def test_a_bad_price_is_refused(text: str) -> None:
    with pytest.raises(InputError):
        parse_price(text)


def test_parse_price() -> None:
    assert parse_price(" 3 , 15 ") == Price(3.0, 15.0)


def _done(tokens_in: int, tokens_out: int) -> Completion:
    return Completion("x", tokens_in, tokens_out, "m", None, None)


def test_budget_by_pairs_and_by_cost() -> None:
    meter = Meter(Price(1_000_000.0, 0.0))  # a dollar a token: easy sums
    assert Budget(max_pairs=2).may_start(1, 0, meter)
    assert not Budget(max_pairs=2).may_start(2, 0, meter)
    budget = Budget(max_cost=10.0)
    assert budget.may_start(0, 0, meter) and not budget.may_start(1, 1, meter)  # one at first
    meter.add(_done(3, 0))  # spent 3, a mean of 3 a request
    assert budget.may_start(1, 1, meter)  # 3 + 2 x 3 = 9 <= 10
    assert not budget.may_start(2, 2, meter)  # 3 + 3 x 3 = 12 > 10
    with pytest.raises(InputError, match="--price"):
        Budget(max_cost=1.0).check(None, "llama3")
    Budget(max_cost=1.0).check(Price(0, 0), "llama3")


def test_scrub_hides_the_key_and_key_shaped_text() -> None:
    text = "bad key sk-ant-api03-abcdefgh12345678 and Bearer abcdefghijklmnopqrstuv, mine: zzzz9"
    shown = scrub(text, ["zzzz9"])
    assert "sk-ant" not in shown and "abcdefghijklmnop" not in shown and "zzzz9" not in shown
    assert shown.count(HIDDEN) == 3


def test_run_limited_never_has_more_in_flight_than_asked() -> None:
    lock = threading.Lock()
    running, most = 0, 0
    gate = threading.Barrier(3)

    def work(item: int) -> int:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        if item < 3:
            gate.wait(timeout=30)  # the first three run together: the limit is reached
        with lock:
            running -= 1
        if item == 5:
            raise ValueError("five")
        return item * 10

    results = dict(run_limited(range(8), work, concurrency=3))
    assert most == 3
    assert isinstance(results.pop(5), ValueError)
    assert results == {i: i * 10 for i in range(8) if i != 5}


def test_run_limited_stops_starting_when_the_budget_says() -> None:
    seen: list[int] = []
    out = list(run_limited(range(10), seen.append, concurrency=2, may_start=lambda s, f: s < 4))
    assert sorted(seen) == [0, 1, 2, 3] and len(out) == 4
