"""The history screen, reached from home with h: every recorded release per system, the paired
change, the recurring failures; Enter on one drills into every release's top k with grades."""

from __future__ import annotations

from history_support import disagreeing_store, recorded_store
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
        await pilot.press("d")  # every release of this system (Enter: the latest's top k view)
        await pilot.pause()
        drill = app.screen
        assert isinstance(drill, HistoryQueryScreen)
        assert (drill.system, drill.query_id) == ("minilm", "q36")
        table = drill.query_one("#history-query-table")
        assert (table.row_count, len(table.columns)) == (10, 1 + 3)  # ranks x (rank + releases)
        first = [str(c) for c in table.get_row_at(0)]
        # the cell is the record's rank-1 document of 2026.1 with its grade as scored
        top = drill.records[0].topk["q36"][0]
        expected = f"[{top[2] if top[2] is not None else '?'}] {top[1]}"
        assert expected.startswith(first[1].rstrip("…")) and len(first[1]) > 5
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen


async def test_names_from_data_are_shown_literally(tmp_path) -> None:
    import polars as pl

    from goldset_tui.history.records import make_record, record
    from goldset_tui.store import Project

    pool = tmp_path / "pool.csv"
    pool.write_text("query_id,query,doc_id,text\nq1,a,d1,x\n", encoding="utf-8")
    store = tmp_path / "store"
    Project.create(store, pool_path=pool, pool_sha256="0" * 64)
    hostile = "[bold]r1[/bold]\x1b[31m"
    for release, values in ((hostile, [0.0, 1.0]), ("[red]r2", [0.0, 1.0]), ("r3", [0.0, 0.0])):
        record(
            store,
            make_record(
                release=release,
                system="sys[/]",
                measure="P@1",
                version={"id": "v"},
                scores=pl.DataFrame({"query_id": ["q[b]1", "q2"], "value": values}),
                strata=pl.DataFrame({"query_id": ["q[b]1"], "stratum": ["[i]s"]}),
            ),
        )
    app = GoldsetApp(lambda: HistoryScreen(store))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.screen.query_one("#history-releases")
        cells = [str(c) for c in table.get_row_at(0)]
        assert cells[0] == "sys[/]"
        assert cells[1].startswith("[bold]r1[/bold]") and "\x1b" not in cells[1]
        recurring = app.screen.query_one("#history-recurring")
        assert [str(c) for c in recurring.get_row_at(0)][1:3] == ["q[b]1", "[i]s"]


async def test_the_disagreement_mark_has_its_legend_on_screen(tmp_path) -> None:
    # The change of r2 is marked ‡ in the table and in the detail line; the legend under the
    # title says what ‡ means, in the words of `goldset compare`'s note and `goldset history`'s.
    from goldset_tui.history.format import DISAGREE_LINE
    from goldset_tui.report.words import TESTS_DISAGREE_SHORT

    app = GoldsetApp(lambda: HistoryScreen(disagreeing_store(tmp_path)))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        (change,) = screen.history.changes
        assert change["ci95"][0] > 0 and change["p_value"] >= 0.05  # they disagree
        table = screen.query_one("#history-releases")
        assert str(table.get_row_at(1)[5]) == f"{change['mean_diff']:+.3f}*‡"
        table.move_cursor(row=1)
        await pilot.pause()
        assert "‡" in str(screen.query_one("#history-detail").render())
        legend = screen.query_one("#history-legend")
        assert legend.display and legend.region.height >= 1  # on screen, not only in the DOM
        assert DISAGREE_LINE == "‡ " + TESTS_DISAGREE_SHORT
        assert str(legend.render()) == DISAGREE_LINE


async def test_no_legend_without_the_mark() -> None:
    # The sample's releases: every change's interval and p-value agree, so no ‡ and no legend.
    app = GoldsetApp(lambda: HistoryScreen(recorded_store()))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.screen.query_one("#history-releases")
        cells = [str(table.get_row_at(i)[5]) for i in range(table.row_count)]
        assert cells[1] and not any("‡" in c for c in cells)
        assert not app.screen.query_one("#history-legend").display


run_async_tests(globals())
