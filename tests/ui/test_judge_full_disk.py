"""A full disk that stops compaction (Polars' ComputeError) is not "NOT SAVED": every grade is in
the journal, the screen moves on, and says once that the disk is full."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from test_judge_support import FakeClock, run_async_tests

import goldset_tui.store.writer as writer_module
from goldset_tui.judging import JudgingSession
from goldset_tui.store import Project, sha256_file
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen


async def test_a_full_disk_in_compaction_is_said_once_and_every_grade_is_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writer_module, "COMPACT_EVERY", 2)
    pool_file = tmp_path / "pool.jsonl"
    pool_file.write_text('{"query_id": "q1"}\n')
    project = Project.create(
        tmp_path / "store", pool_path=pool_file, pool_sha256=sha256_file(pool_file)
    )
    writer = project.writer("alice")

    def full(self: pl.DataFrame, *args: object, **kwargs: object) -> None:
        raise pl.exceptions.ComputeError("No space left on device (os error 28)")

    monkeypatch.setattr(pl.DataFrame, "write_parquet", full)
    pool = pl.DataFrame(
        {
            "query_id": ["q1"] * 6,
            "query": ["rotate keys"] * 6,
            "doc_id": [f"d{i}" for i in range(6)],
            "text": ["text"] * 6,
        }
    )
    session = JudgingSession(pool, "alice", writer=writer, clock=FakeClock(step=3.0))
    said: list[str] = []
    screen = JudgeScreen(session, show_guidelines=False, writer=writer)
    real_notify = screen.notify

    def notify(message: str, **kwargs: object) -> None:
        said.append(str(message))
        real_notify(message, **kwargs)  # type: ignore[arg-type]

    screen.notify = notify  # type: ignore[method-assign]
    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"12121")
        await pilot.pause()
        assert "NOT SAVED" not in str(screen.status_bar.saved) and "saved #5=1" in str(
            screen.status_bar.saved
        )
    disk = [s for s in said if "No space left on device" in s]
    assert len(disk) == 1 and "Judgments are saved" in disk[0]
    assert not any(s.startswith("Not saved") for s in said)
    lines = writer.journal_path.read_text().splitlines()
    assert len(lines) == 5  # one record per key press: nothing saved twice
    monkeypatch.undo()
    grades = Project.open(project.path).qrels("alice")["grade"].to_list()
    assert sorted(grades) == [1, 1, 1, 2, 2]  # blind order; every press saved once


run_async_tests(globals())
