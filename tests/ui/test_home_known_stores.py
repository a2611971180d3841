"""The home screen lists every store goldset knows, wherever it was made; `goldset --store DIR`
opens home on that one store (its history, review, agreement and closure screens with it); a
labeller's progress on a planned overlap is counted against her share, not the whole pool."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from test_judge_support import run_async_tests

import goldset_tui.ui.app as app_module
from goldset_tui.cli import main
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.history import HistoryScreen
from goldset_tui.ui.screens.home import HomeScreen

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
POOL = SAMPLE / "pool.jsonl"


def import_some(store: Path, tmp_path: Path, name: str = "ana", n: int = 112) -> None:
    grades = tmp_path / f"{name}.qrels"
    lines = (SAMPLE / "judgments" / "alice.qrels").read_text().splitlines(keepends=True)
    grades.write_text("".join(lines[:n]))
    argv = ["import", "--pool", str(POOL), "--store", str(store), "--labeller", name]
    assert main([*argv, "--human", str(grades)]) == 0


async def settled(app: GoldsetApp, pilot) -> None:
    await app.workers.wait_for_complete()
    await pilot.wait_for_scheduled_animations()


def cells(app: GoldsetApp) -> list[list[str]]:
    table = app.screen.query_one("#projects")
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_a_store_made_elsewhere_is_listed_at_home(tmp_path: Path) -> None:
    import_some(tmp_path / "elsewhere" / "S", tmp_path)
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 30)) as pilot:
        await settled(app, pilot)
        assert [row[1:4] for row in cells(app)] == [["ana", "112", "1,285"]]
        detail = str(app.screen.query_one("#home-detail").render())
        assert "store: " in detail and "elsewhere" in detail


def test_goldset_store_dir_opens_home_on_that_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "S"
    import_some(store, tmp_path)
    import_some(tmp_path / "other", tmp_path, name="bob", n=3)  # known, but not asked for
    seen: dict[str, object] = {}

    def drive(make_screen) -> int:
        async def go() -> None:
            app = GoldsetApp(make_screen)
            async with app.run_test(size=(120, 30)) as pilot:
                await settled(app, pilot)
                seen["rows"] = [row[1:3] for row in cells(app)]
                await pilot.press("h")
                await settled(app, pilot)
                seen["history"] = getattr(app.screen, "store", None)
                assert isinstance(app.screen, HistoryScreen)

        asyncio.run(go())
        return 0

    monkeypatch.setattr(app_module, "run_app", drive)
    assert main(["--store", str(store)]) == 0
    assert seen == {"rows": [["ana", "112"]], "history": store.resolve()}


def test_goldset_store_on_a_folder_that_is_no_store_is_one_line(tmp_path: Path, capsys) -> None:
    assert main(["--store", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(tmp_path) in err


def test_store_before_a_command_is_refused_not_ignored(tmp_path: Path, capsys) -> None:
    assert main(["--store", str(tmp_path), "qrels", "--store", str(tmp_path)]) == 2
    assert "give it after" in capsys.readouterr().err


async def test_progress_on_a_planned_overlap_counts_the_share(tmp_path: Path) -> None:
    from goldset_tui.commands.judge import prepare

    store = tmp_path / "S"
    import_some(store, tmp_path)
    prepare(POOL, "ana", store=store, assign="overlap=0.2", team="ana,bob")
    share = set(prepare(POOL, "ana", store=store).query_ids or [])
    rows = [json.loads(line) for line in POOL.open()]
    assigned = sum(1 for r in rows if r["query_id"] in share)
    assert 0 < assigned < len(rows)
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 30)) as pilot:
        await settled(app, pilot)
        (row,) = cells(app)
        assert row[1:4] == ["ana", "112", f"{assigned:,} a"]
        assert row[4] == f"{100 * 112 / assigned:.0f}%"
        detail = str(app.screen.query_one("#home-detail").render())
        assert f"ana 112 of {assigned:,} assigned (overlap 0.2 shared with bob)" in detail


run_async_tests(globals())
