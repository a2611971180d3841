"""The history screen, reached from home with h: every recorded release per system, the paired
change, the recurring failures; Enter on one drills into every release's top k with grades."""

from __future__ import annotations

from history_support import recorded_store
from test_judge_support import run_async_tests

from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.history import HistoryScreen
from goldset_tui.ui.screens.history_query import HistoryQueryScreen
from goldset_tui.ui.screens.home import HomeScreen


async def test_history_from_home_and_drill_into_a_recurring_failure() -> None:
    store = recorded_store()
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("h")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, HistoryScreen) and screen.store == store
        releases = screen.query_one("#history-releases")
        assert releases.row_count == 6  # 3 releases x 2 systems
        assert [r["release"] for r in screen.history.releases[:3]] == ["2026.1", "2026.2", "2026.3"]
        recurring = screen.query_one("#history-recurring")
        assert {(r["system"], r["query_id"]) for r in screen.history.recurring} == {
            ("minilm", "q36"),
            ("minilm", "q38"),
            ("minilm", "q42"),
        }
        recurring.focus()
        await pilot.press("enter")
        await pilot.pause()
        drill = app.screen
        assert isinstance(drill, HistoryQueryScreen)
        assert (drill.system, drill.query_id) == ("minilm", "q36")
        table = drill.query_one("#history-query-table")
        assert table.row_count == 3 * 10  # every release's top 10
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen


run_async_tests(globals())
