"""The history screen's title counts releases and systems apart (its table has a row per
system and release), and every suggested command names the store itself, not `DIR`."""

from __future__ import annotations

import shlex
from pathlib import Path

from history_support import recorded_store
from test_judge_support import run_async_tests

from goldset_tui.cli import main
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.history import HistoryScreen


async def test_the_title_counts_releases_not_rows() -> None:
    store = recorded_store()  # 3 releases of 2 systems: 6 rows
    app = GoldsetApp(lambda: HistoryScreen(store))
    async with app.run_test(size=(120, 30)):
        await app.workers.wait_for_complete()
        title = str(app.screen.query_one("#history-title").render())
        rows = app.screen.query_one("#history-releases").row_count
        assert rows == 6 and "3 releases of 2 systems" in title


async def test_an_empty_history_names_this_store(tmp_path: Path) -> None:
    from goldset_tui.store import Project

    store = tmp_path / "my store"
    Project.create(store, pool_path=tmp_path / "pool.jsonl", pool_sha256="x")
    app = GoldsetApp(lambda: HistoryScreen(store))
    async with app.run_test(size=(160, 30)):
        await app.workers.wait_for_complete()
        title = str(app.screen.query_one("#history-title").render())
        assert f"--store {shlex.quote(str(store))} --release NAME" in title


def test_the_recurring_list_names_the_store_in_its_command(capsys) -> None:
    store = recorded_store()
    for form in ("text", "md"):
        capsys.readouterr()
        assert main(["history", "--store", str(store), "--samples", "50", "--format", form]) == 0
        out = capsys.readouterr().out
        assert "--store DIR" not in out
        (line,) = [x for x in out.splitlines() if "goldset regressions" in x]
        command = shlex.split(line[line.index("goldset") :].replace("\\", ""))
        assert command[:4] == ["goldset", "regressions", "--store", str(store)]


run_async_tests(globals())
