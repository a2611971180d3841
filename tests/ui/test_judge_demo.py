"""`goldset demo` judges the sample pool that ships inside the package, in a store kept under the
user data folder: `q` saves and quits, the next `goldset demo` resumes, `--fresh` starts over, and
one line on exit says where the judgments are."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import goldset_tui.ui.app as app_module
from goldset_tui import locations
from goldset_tui.cli import main
from goldset_tui.store import Project
from goldset_tui.ui.app import GoldsetApp


def judge_two_then_quit(make_screen) -> int:
    """Stands in for run_app: the real app and screen, driven by keys, headless."""

    async def drive() -> int:
        app = GoldsetApp(make_screen)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            if not hasattr(app.screen, "session"):
                await pilot.press("escape")  # the guidelines show first on a fresh store
            await pilot.press("2", "0")
            await pilot.pause()
            await pilot.press("q")
            await pilot.pause()
        return int(app.return_value or 0)

    return asyncio.run(drive())


@pytest.fixture
def headless(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(app_module, "run_app", judge_two_then_quit)


def demo_judged() -> list[tuple[str, int]]:
    summary = Project.open(locations.projects_dir() / "demo").summary().to_dicts()
    return [(r["labeller"], r["judged"]) for r in summary]


def test_demo_keeps_its_store_and_resumes_it(
    headless: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os_cwd = Path.cwd()
    assert main(["demo"]) == 0
    store = locations.projects_dir() / "demo"
    assert demo_judged() == [("demo", 2)]
    assert Project.open(store).name == "demo"  # listed as "demo" on the home screen
    err = capsys.readouterr().err
    assert err == (
        f"goldset demo: 2 of 1,285 judged, kept in {store} (goldset demo resumes, --fresh starts "
        f"over; export: goldset qrels --store {store})\n"
    )
    assert main(["demo"]) == 0  # the next demo resumes: two more
    assert demo_judged() == [("demo", 4)]
    assert Path.cwd() == os_cwd and not list(tmp_path.glob("pool*"))  # nothing in the cwd


def test_demo_fresh_starts_over(headless: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    assert main(["demo", "--fresh"]) == 0
    assert demo_judged() == [("demo", 2)]
    assert "started over (removed " in capsys.readouterr().err


def test_demo_where_prints_the_store(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--where"]) == 0
    said = capsys.readouterr()
    assert said.out == f"{locations.projects_dir() / 'demo'}\n"
    # Before any demo the folder is not there: said, so that `goldset qrels --store
    # "$(goldset demo --where)"` failing with "no such store folder" is explained.
    assert said.err == "goldset: note: no demo judged yet: `goldset demo` makes its store there\n"


def test_demo_where_after_a_demo_says_only_the_store(
    headless: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo"]) == 0
    capsys.readouterr()
    assert main(["demo", "--where"]) == 0
    assert capsys.readouterr().err == ""


def test_demo_with_dir_keeps_the_store_there(
    headless: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = tmp_path / "kept"
    assert main(["demo", "--dir", str(kept)]) == 0
    summary = Project.open(kept / "store").summary().to_dicts()
    assert [(r["labeller"], r["judged"]) for r in summary] == [("demo", 2)]
    assert f"kept in {kept / 'store'}" in capsys.readouterr().err


def test_demo_says_where_the_judgments_are_when_the_app_fails(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def boom(make_screen) -> int:
        raise RuntimeError("terminal went away")

    monkeypatch.setattr(app_module, "run_app", boom)
    with pytest.raises(RuntimeError):
        main(["demo"])
    assert "judged, kept in" in capsys.readouterr().err
