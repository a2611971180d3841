"""Snapshot setup: the text cursor of every input is frozen visible.

Textual blinks a focused input's cursor every half second on a timer. On a loaded machine more than
half a second can pass between a dialog opening and the picture, so the same screen was taken with
the cursor cell filled or not: identical text, different fills, a failure now and then. With the
blink frozen, what a picture shows no longer depends on how long it took to take.
"""

from __future__ import annotations

import pytest
from textual.widgets import Input


def _cursor_stays_visible(self: Input) -> None:
    self._cursor_visible = True


@pytest.fixture(autouse=True)
def frozen_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Input, "_toggle_cursor", _cursor_stays_visible)
