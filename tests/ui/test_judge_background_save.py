"""The grade's fsync is off the key's path: the next candidate is on screen
while the background writer still waits for the disk, the saved cell says "saving…" until the
fsync returned and "✓ saved" only after; a failed save is shown, the grade not counted and the
labeller brought back to it; quitting waits for the pending save. Real store, slow or failing
fdatasync (the journal's ``fsync_fd`` calls ``files._datasync``)."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest
from save_gates import HeldFsync, store, until
from test_judge_support import FakeClock, run_async_tests, tiny_pool
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

import goldset_tui.store.files as files_module
from goldset_tui.judging import JudgingSession
from goldset_tui.store import Project
from goldset_tui.store.writer import JudgmentWriter
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen


def _screen(writer: JudgmentWriter) -> JudgeScreen:
    session = JudgingSession(tiny_pool(), "alice", writer=writer, clock=FakeClock(step=3.0))
    return JudgeScreen(session, show_guidelines=False, writer=writer, background=True)


def _grades(project: Project) -> list[int]:
    return Project.open(project.path).qrels("alice")["grade"].to_list()


async def test_next_candidate_before_the_fsync_returns_and_saved_only_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, writer = store(tmp_path)
    # The fsync is held until the test lets it go: a sleep would race with a loaded machine,
    # where the key's own handling can outlast it (seen in CI).
    fsync = HeldFsync(monkeypatch)
    screen = _screen(writer)
    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(80, 24)) as pilot:
        first = screen.session.current.doc_id  # type: ignore[union-attr]
        await pilot.press("2")
        await pilot.pause()
        shown = str(screen.query_one("#candidate").render())
        after = screen.session.current.doc_id  # type: ignore[union-attr]
        # The next candidate is drawn while the grade's fsync has not returned yet ...
        assert not fsync.returned.is_set()
        assert after != first and after in shown
        assert str(screen.status_bar.saved).startswith("saving\u2026") and "saved" not in str(
            screen.status_bar.saved
        )
        # ... and "✓ saved" appears only once it has.
        fsync.open()
        await until(pilot, lambda: "\u2713 saved" in str(screen.status_bar.saved))
        assert fsync.returned.is_set()
        assert str(screen.status_bar.saved).startswith("\u2713 saved #")
    assert _grades(project) == [2]


async def test_a_failed_save_is_shown_not_counted_and_the_labeller_brought_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, writer = store(tmp_path)
    screen = _screen(writer)
    app = GoldsetApp(lambda: screen)
    said: list[str] = []
    real_notify = screen.notify

    def notify(message: str, **kwargs: object) -> None:
        said.append(str(message))
        real_notify(message, **kwargs)  # type: ignore[arg-type]

    screen.notify = notify  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        session = screen.session
        assert session is not None
        await pilot.press("1")
        await until(pilot, lambda: "\u2713 saved" in str(screen.status_bar.saved))

        # The disk fails, but only once the test lets it answer: both keys are given first,
        # the second queued behind the failing one (a sleep raced with a loaded machine).
        fsync = HeldFsync(monkeypatch, OSError(5, "Input/output error"))
        failing = session.current.doc_id
        await pilot.press("3", "0")
        fsync.open()
        await until(
            pilot, lambda: "NOT SAVED" in str(screen.status_bar.saved) and session.unsaved == 0
        )
        monkeypatch.undo()
        assert session.current.doc_id == failing  # back on the candidate whose save failed
        assert session.current_grade is None  # not counted ...
        assert session.judged_count == 1 and session.unsaved == 0
        assert any(s.startswith("Not saved") and "Input/output error" in s for s in said)
        await pilot.press("2")  # graded again, saved this time
        await until(pilot, lambda: "\u2713 saved" in str(screen.status_bar.saved))
    assert sorted(_grades(project)) == [1, 2]  # ... and never written: no 3, no 0


async def test_quitting_waits_for_the_pending_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, writer = store(tmp_path)
    fsync = HeldFsync(monkeypatch)  # held by the test, not a sleep a loaded machine can outlast
    screen = _screen(writer)
    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("3")
        assert not fsync.returned.is_set()  # still on its way to the disk when q is pressed
        threading.Timer(0.3, fsync.open).start()  # the disk answers while quitting waits
        await pilot.press("q")
        await pilot.pause()
    assert fsync.returned.is_set()
    assert _grades(project) == [3]


async def test_a_save_that_fails_while_q_waits_keeps_the_screen_and_q_again_quits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, writer = store(tmp_path)
    fsync = HeldFsync(monkeypatch, OSError(28, "No space left on device"))
    screen = _screen(writer)
    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("3")
        quitting = asyncio.create_task(pilot.press("q"))  # returns once the wait is over
        await until(pilot, lambda: "Waiting for 1 grade" in _status(screen))
        fsync.open()
        await quitting
        await pilot.pause()
        assert app.is_running and "NOT SAVED" in str(screen.status_bar.saved)
        assert "No space left" in str(screen.status_bar.saved)
        await pilot.press("q")  # seen, not graded again: q again quits
        await until(pilot, lambda: not app.is_running)
    assert app.flush_errors == []
    assert _grades(project) == []


async def test_a_save_that_fails_while_a_signal_quits_is_said_on_exit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SIGTERM/SIGHUP quit without waiting on screen (the terminal may be gone): flush_screens
    # waits for the save, and what failed is printed after the screen closes.
    project, writer = store(tmp_path)
    fsync = HeldFsync(monkeypatch, OSError(28, "No space left on device"))
    screen = _screen(writer)
    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("3")
        fsync.open()
        app.flush_screens()  # what _on_signal does before it exits
        app.exit(143)
        await pilot.pause()
    monkeypatch.undo()
    assert any("could not be saved" in m and "No space left" in m for m in app.flush_errors)
    assert _grades(project) == []


async def test_undo_waits_for_the_pending_save_and_undoes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, writer = store(tmp_path)
    real = files_module._datasync

    def slow(fd: int) -> None:
        time.sleep(0.2)
        real(fd)

    monkeypatch.setattr(files_module, "_datasync", slow)
    screen = _screen(writer)
    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("1", "2", "u")
        await pilot.pause()
        assert screen.session is not None and screen.session.judged_count == 1
        assert "undo #2" in str(screen.status_bar.saved)
    assert _grades(project) == [1]


def _status(screen: JudgeScreen) -> str:
    return str(screen.query_one("#status", Static).content)


async def test_quitting_says_it_waits_for_the_saves_still_on_their_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, writer = store(tmp_path)
    fsync = HeldFsync(monkeypatch)  # the disk answers when the test says so
    screen = _screen(writer)
    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("3")
        # Pilot's press returns once the app handled the key, that is once the wait is over: the
        # key goes in from a task, and the test watches the screen meanwhile.
        quitting = asyncio.create_task(pilot.press("q"))
        # The screen still draws while it waits, and says why it has not quit yet.
        await until(pilot, lambda: "Waiting for 1 grade" in _status(screen))
        assert app.is_running and not fsync.returned.is_set()
        fsync.open()
        await quitting
        await until(pilot, lambda: not app.is_running)
    assert fsync.returned.is_set()
    assert _grades(project) == [3]  # durable before the program ended


class _Home(Screen[None]):
    IS_HOME = True

    def compose(self) -> ComposeResult:
        yield Static("home")


async def test_a_save_failing_while_leaving_for_home_keeps_the_screen_and_its_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, writer = store(tmp_path)
    fsync = HeldFsync(monkeypatch, OSError(5, "Input/output error"))
    screen = _screen(writer)
    app = GoldsetApp(_Home)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(screen)
        await pilot.pause()
        session = screen.session
        assert session is not None
        first = session.current.doc_id
        await pilot.press("3")
        leaving = asyncio.create_task(pilot.press("q"))  # returns once the wait is over
        await until(pilot, lambda: "Waiting for 1 grade" in _status(screen))
        fsync.open()  # the pending grade's fsync fails while q waits for it
        await leaving
        await until(pilot, lambda: "NOT SAVED" in str(screen.status_bar.saved))
        await pilot.pause()
        # Still judging, the store open, one line saying why, the labeller on the lost grade.
        assert app.screen is screen and not screen._writer_closed
        assert str(screen.status_bar.saved).startswith("\u2717 NOT SAVED: grade 3 for #1 of q1")
        # The status line says why the screen stayed (when the NOT SAVED cell leaves it room).
        assert str(screen.status_bar.message).startswith("Stayed: a grade was not saved")
        assert session.current.doc_id == first and session.current_grade is None
        fsync.error = None  # the disk works again
        await pilot.press("2")  # graded again: saved into the store that stayed open
        await until(pilot, lambda: "\u2713 saved" in str(screen.status_bar.saved))
        await pilot.press("q")  # and now leaving works
        await until(pilot, lambda: isinstance(app.screen, _Home))
        assert screen._writer_closed
    assert _grades(project) == [2]


run_async_tests(globals())
