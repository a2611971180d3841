"""Snapshots of the system-ranking screen at 80x24 and 120x40: three systems ranked under a human label set
and a machine's, every pair flipped (the case of tests/ui/test_system_ranking_screen.py).

Regenerate with `pytest tests/snapshots/test_system_ranking_snapshots.py --snapshot-update` and
look at the SVG before committing it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ui"))

from test_system_ranking_screen import ranking

from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.system_ranking import SystemRankingScreen


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_system_ranking_screen(snap_compare, size) -> None:
    app = GoldsetApp(lambda: SystemRankingScreen(ranking()))
    assert snap_compare(app, terminal_size=size)
