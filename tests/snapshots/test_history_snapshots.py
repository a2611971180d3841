"""Snapshots of the history screen and its drill-down at 80x24 and 120x40 (three illustrative
releases of the sample), and of the screen when a change's interval and p-value disagree (marked
‡, with the legend line under the title).

Regenerate with `pytest tests/snapshots/test_history_snapshots.py --snapshot-update` and look at
the SVG before committing it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "ui"))

from history_support import disagreeing_store, recorded_store

from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.history import HistoryScreen

SIZES = [(80, 24), (120, 40)]
IDS = [f"{w}x{h}" for w, h in SIZES]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_history_screen(snap_compare, size):
    store = recorded_store()

    async def loaded(pilot):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    app = GoldsetApp(lambda: HistoryScreen(store))
    assert snap_compare(app, terminal_size=size, run_before=loaded)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_history_screen_with_a_disagreement(snap_compare, size, tmp_path):
    store = disagreeing_store(tmp_path)

    async def loaded(pilot):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        pilot.app.screen.query_one("#history-releases").move_cursor(row=1)  # the marked change
        await pilot.pause()

    app = GoldsetApp(lambda: HistoryScreen(store))
    assert snap_compare(app, terminal_size=size, run_before=loaded)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_history_drill(snap_compare, size):
    store = recorded_store()

    async def drilled(pilot):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        pilot.app.screen.query_one("#history-recurring").focus()
        await pilot.press("d")  # every release of the system (Enter: the latest's top k)
        await pilot.pause()

    app = GoldsetApp(lambda: HistoryScreen(store))
    assert snap_compare(app, terminal_size=size, run_before=drilled)
