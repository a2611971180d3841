"""Terminal tests: a ``tmux`` fixture (see tmuxutil.py) that always cleans up its server."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from tmuxutil import Tmux


@pytest.fixture
def tmux():
    sessions: list[Tmux] = []

    def make(width: int = 80, height: int = 24) -> Tmux:
        t = Tmux(width, height)
        sessions.append(t)
        return t

    yield make
    for t in sessions:
        t.close()
