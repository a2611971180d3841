"""`goldset demo` judges the sample pool in a throwaway folder that is gone after exit (one line
says so, with the count of judgments that went with it); `--dir` keeps it."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest

import goldset_tui.ui.app as app_module
from goldset_tui.cli import main
from goldset_tui.store import Project
from goldset_tui.ui.app import GoldsetApp


def judge_two_then_quit(make_screen) -> int:  # noqa: ANN001
    """Stands in for run_app: the real app and screen, driven by keys, headless."""

    async def drive() -> int:
        app = GoldsetApp(make_screen)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.press("escape", "2", "0")  # the guidelines show first on a fresh store
            await pilot.pause()
            await pilot.press("q")
            await pilot.pause()
        return int(app.return_value or 0)

    return asyncio.run(drive())


@pytest.fixture
def own_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    monkeypatch.setattr(app_module, "run_app", judge_two_then_quit)
    return folder


def test_demo_removes_its_throwaway_folder_and_says_so(
    own_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo"]) == 0
    assert list(own_tmp.iterdir()) == []  # nothing left behind
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"goldset demo: removed the throwaway store {own_tmp}/goldset-demo-")
    assert "(2 judgment(s); use --dir DIR to keep one)" in err


def test_demo_with_dir_keeps_the_store(
    own_tmp: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = tmp_path / "kept"
    assert main(["demo", "--dir", str(kept)]) == 0
    summary = Project.open(kept / "store").summary().to_dicts()
    assert [(r["labeller"], r["judged"]) for r in summary] == [("demo", 2)]
    assert f"judgments are in {kept / 'store'}" in capsys.readouterr().err
    assert list(own_tmp.iterdir()) == []


def test_demo_cleans_up_when_the_app_fails(own_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(make_screen) -> int:  # noqa: ANN001
        raise RuntimeError("terminal went away")

    monkeypatch.setattr(app_module, "run_app", boom)
    with pytest.raises(RuntimeError):
        main(["demo"])
    assert list(own_tmp.iterdir()) == []
