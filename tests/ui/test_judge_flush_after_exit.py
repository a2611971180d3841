"""``screen.flush()`` after the app has gone (``goldset judge`` and ``goldset demo`` call it in a
``finally`` after ``run_app`` returns, for an app that exited without flushing: an exception in
the app, an exit from elsewhere) while a background save is still on its way to the disk: the
save settles late, on a screen that is no longer drawn. The grade must still be saved, the store
closed and unlocked, and nothing raise but the one error that says which grade was not saved.

The fsync is held on an event the test releases once the app is closed (no sleeps)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from save_gates import HeldFsync, store
from test_judge_support import FakeClock, run_async_tests, tiny_pool

from goldset_tui.judging import JudgingSession
from goldset_tui.store import Project
from goldset_tui.store.journal import is_locked
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen


async def _grade_then_exit_without_flushing(screen: JudgeScreen, keys: str) -> None:
    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*keys)
        assert screen.session is not None and screen.session.unsaved == len(keys)
        app.exit(1)  # what an exception inside the app does: no flush on the way out
        await pilot.pause()
    assert not screen._writer_closed  # the app did not flush: the command's finally will


def test_a_save_settling_after_the_app_closed_is_kept_and_flush_closes_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, writer = store(tmp_path)
    fsync = HeldFsync(monkeypatch)  # opened by the test once the app has closed
    session = JudgingSession(tiny_pool(), "alice", writer=writer, clock=FakeClock(step=3.0))
    screen = JudgeScreen(session, show_guidelines=False, writer=writer, background=True)
    asyncio.run(_grade_then_exit_without_flushing(screen, "23"))
    fsync.open()  # the disk answers now: both grades settle on a screen that is gone
    screen.flush()  # what commands/judge.py's finally does; used to raise NoActiveAppError
    assert session.unsaved == 0
    assert "\u2713 saved #2=3" in screen.status_bar.saved.plain  # the cell's state is still kept
    journal, _ = project.labeller_paths("alice")
    assert not is_locked(journal)  # closed: the next `goldset judge` can open it
    grades = Project.open(project.path).judgments("alice").sort("seq")["grade"].to_list()
    assert grades == [2, 3]


def test_a_save_failing_after_the_app_closed_is_one_os_error_naming_the_grade(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, writer = store(tmp_path)
    fsync = HeldFsync(monkeypatch, OSError(28, "No space left on device"))
    session = JudgingSession(tiny_pool(), "alice", writer=writer, clock=FakeClock(step=3.0))
    screen = JudgeScreen(session, show_guidelines=False, writer=writer, background=True)
    asyncio.run(_grade_then_exit_without_flushing(screen, "3"))
    fsync.open()
    with pytest.raises(OSError) as caught:
        screen.flush()
    monkeypatch.undo()
    # An OSError the CLI prints on one line (it shows strerror), naming the grade and the cause.
    assert caught.type is OSError
    assert caught.value.strerror is not None
    assert "grade 3 for #1 of q1" in caught.value.strerror
    assert "No space left on device" in caught.value.strerror
    journal, _ = project.labeller_paths("alice")
    assert not is_locked(journal)  # closed all the same
    assert Project.open(project.path).judgments("alice").height == 0
    screen.flush()  # idempotent: the second call has nothing left to do


run_async_tests(globals())
