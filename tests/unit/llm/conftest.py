"""The fake provider server (fake_provider.py), started for a test and stopped after it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_provider import ANTHROPIC_KEY, OPENAI_KEY, FakeProvider


@pytest.fixture
def fake_provider() -> Iterator[FakeProvider]:
    server = FakeProvider().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def keys_env() -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": ANTHROPIC_KEY, "OPENAI_API_KEY": OPENAI_KEY}
