"""The home screen lists projects in the default store folder with each labeller's progress, and
opens the judging screen from there; `goldset judge` validates before any screen opens."""

from __future__ import annotations

import json
from pathlib import Path

from test_judge_support import run_async_tests, tiny_pool

from goldset_tui import locations
from goldset_tui.cli import main
from goldset_tui.model import Judgment
from goldset_tui.store import Project, default_store_for, now_iso
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.home import HomeScreen, scan
from goldset_tui.ui.screens.judge import JudgeScreen


def make_project(tmp_path: Path, judged: dict[str, int]) -> Path:
    pool = tmp_path / "docs-pool.jsonl"
    with pool.open("w", encoding="utf-8") as fh:
        for row in tiny_pool(4).to_dicts():
            fh.write(json.dumps(row) + "\n")
    from goldset_tui.io.pools import load_pool

    loaded = load_pool(pool)
    project = Project.open_or_create(default_store_for(pool), pool_path=pool, pool_sha256=loaded.sha256)
    docs = loaded.frame.select("query_id", "doc_id").rows()
    for name, count in judged.items():
        with project.writer(name) as writer:
            for q, d in docs[:count]:
                writer.record(Judgment(name, q, d, 1, now_iso()))
    return pool


def test_scan_lists_each_labeller_with_judged_counts(tmp_path: Path) -> None:
    make_project(tmp_path, {"alice": 5, "bob": 2})
    rows = scan()
    assert [(r.project, r.labeller, r.judged) for r in rows] == [("docs-pool", "alice", 5), ("docs-pool", "bob", 2)]
    assert all(r.store.parent == locations.projects_dir() for r in rows)


def test_scan_of_an_empty_folder_is_empty() -> None:
    assert scan() == []


async def test_home_shows_progress_and_opens_judging(tmp_path: Path) -> None:
    make_project(tmp_path, {"alice": 6})
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.screen.query_one("#projects")
        cells = [str(c) for c in table.get_row_at(0)]
        assert cells[1] == "alice" and cells[2] == "6" and cells[3] == "12" and cells[4] == "50%"
        await pilot.press("enter")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        judge = app.screen
        assert isinstance(judge, JudgeScreen)
        assert judge.session is not None and judge.session.overall_progress() == (6, 12)
        await pilot.press("2", "q")  # q goes back home, after closing the writer
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        cells = [str(c) for c in app.screen.query_one("#projects").get_row_at(0)]
        assert cells[2] == "7"


async def test_judge_as_another_labeller_and_palette_entries(tmp_path: Path) -> None:
    make_project(tmp_path, {"alice": 2})
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Judge docs-pool as alice" in titles and "Agreement of the selected project" in titles
        await pilot.press("a", *"dan", "enter")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("escape")  # dan's first open: the guidelines come first
        judge = app.screen
        assert isinstance(judge, JudgeScreen) and judge.session.labeller == "dan"
        assert judge.session.overall_progress() == (0, 12)  # alice's grades are not dan's


async def test_home_with_no_projects_says_how_to_start() -> None:
    app = GoldsetApp(HomeScreen)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert "goldset demo" in str(app.screen.query_one("#home-hint").render())


def test_judge_rejects_a_bad_pool_before_any_screen(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "pool.csv"
    bad.write_text("query_id,query,doc_id,text\nq1,x,d1,\n", encoding="utf-8")
    assert main(["judge", str(bad), "--labeller", "alice", "--store", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pool.csv" in err and "Traceback" not in err
    assert not (tmp_path / "s").exists()  # nothing written to a store


def test_judge_refuses_a_labeller_already_judging(tmp_path: Path, capsys) -> None:
    pool = make_project(tmp_path, {})
    project = Project.open(default_store_for(pool))
    with project.writer("alice"):
        assert main(["judge", str(pool), "--labeller", "alice"]) == 2
    assert "already open" in capsys.readouterr().err


def test_judge_bad_assign_spec(tmp_path: Path, capsys) -> None:
    pool = make_project(tmp_path, {})
    assert main(["judge", str(pool), "--labeller", "a", "--assign", "overlap=2"]) == 2
    assert "--assign" in capsys.readouterr().err


def test_assignment_serves_this_labellers_share(tmp_path: Path) -> None:
    from goldset_tui.agreement.assignment import assigned_query_ids
    from goldset_tui.commands.judge import prepare

    pool = make_project(tmp_path, {})
    prepared = prepare(pool, "bob", assign="overlap=0.34", team="alice,bob")
    expected = assigned_query_ids(["q1", "q2", "q3"], "bob", ["alice", "bob"], 0.34, 0)
    assert prepared.query_ids == expected
    # Remembered: the next labeller needs no --team.
    again = prepare(pool, "alice", assign="overlap=0.34")
    assert again.project.manifest["assignment"]["labellers"] == ["alice", "bob"]



async def test_home_opens_the_agreement_screen_of_a_project(tmp_path: Path) -> None:
    from goldset_tui.ui.screens.agreement import AgreementScreen

    make_project(tmp_path, {"alice": 6, "bob": 6})
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await pilot.press("A")
        await pilot.pause()
        assert isinstance(app.screen, AgreementScreen)


async def test_agreement_with_one_labeller_is_a_notice(tmp_path: Path) -> None:
    make_project(tmp_path, {"alice": 6})
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await pilot.press("A")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


run_async_tests(globals())
