"""Keys typed while leaving waits ("Waiting for N grades to reach the disk before leaving…") are
ignored, whichever way the wait ends. They used to sit in the app's queue and act afterwards on
whatever screen came next: a grade key on the home screen, a second q quitting the whole app, or,
when a failed save kept the judging screen, a grade typed for the candidate that was on screen
landing on the one the labeller is brought back to (grading it blind). A labeller who pressed q
has said what they want; what they typed while the screen said it was waiting was not typed for
the screen that comes after. Keys typed once the wait is over act as usual.

The fsync is held on an event; the keys go into the app's queue while the wait is on screen."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from save_gates import HeldFsync, store, until
from test_judge_support import FakeClock, run_async_tests, tiny_pool
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from goldset_tui.judging import JudgingSession
from goldset_tui.store import Project
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen


class _Home(Screen[None]):
    """A home screen that remembers the keys it was given (q quits from home, as the real one)."""

    IS_HOME = True
    BINDINGS = [
        Binding("2", "typed('2')", "two"),
        Binding("j", "typed('j')", "down"),
        Binding("q", "app.go_home", "quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.typed: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("home")

    def action_typed(self, key: str) -> None:
        self.typed.append(key)


def _status(screen: JudgeScreen) -> str:
    return str(screen.query_one("#status", Static).content)


def _type_now(app: GoldsetApp, *keys: str) -> None:
    # Straight into the app's queue, as the terminal's input thread puts them: behind q's wait.
    for key in keys:
        app.post_message(events.Key(key, key))


async def test_keys_typed_while_leaving_for_home_waits_do_nothing_on_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, writer = store(tmp_path)
    fsync = HeldFsync(monkeypatch)
    session = JudgingSession(tiny_pool(), "alice", writer=writer, clock=FakeClock(step=3.0))
    screen = JudgeScreen(session, show_guidelines=False, writer=writer, background=True)
    home = _Home()
    app = GoldsetApp(lambda: home)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.press("3")
        leaving = asyncio.create_task(pilot.press("q"))
        await until(pilot, lambda: "Waiting for 1 grade" in _status(screen))
        _type_now(app, "2", "j", "q")  # a grade, a move, and q again (which quits from home)
        fsync.open()
        await leaving
        await until(pilot, lambda: app.screen is home)
        await pilot.pause()
        assert app.is_running  # the second q did not quit the app from home
        assert home.typed == []  # nor did 2 or j act there
        await pilot.press("j")  # typed after the wait: acts as usual
        assert home.typed == ["j"]
    assert Project.open(project.path).qrels("alice")["grade"].to_list() == [3]


async def test_a_grade_typed_while_the_wait_fails_does_not_grade_the_candidate_brought_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, writer = store(tmp_path)
    fsync = HeldFsync(monkeypatch, OSError(5, "Input/output error"))
    session = JudgingSession(tiny_pool(), "alice", writer=writer, clock=FakeClock(step=3.0))
    screen = JudgeScreen(session, show_guidelines=False, writer=writer, background=True)
    app = GoldsetApp(_Home)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(screen)
        await pilot.pause()
        first = session.current.doc_id
        await pilot.press("3")
        assert session.current.doc_id != first  # the labeller sees the second candidate ...
        leaving = asyncio.create_task(pilot.press("q"))
        await until(pilot, lambda: "Waiting for 1 grade" in _status(screen))
        _type_now(app, "1")  # ... and types a grade for it while the screen says it waits
        fsync.error = None  # the next save works: a grade that slipped through would be kept
        fsync.open()  # the pending save of 3 fails: the screen stays, back on the first candidate
        await leaving
        await pilot.pause()
        await until(pilot, lambda: session.unsaved == 0)  # whatever was typed has settled
        assert app.screen is screen
        assert session.judged_count == 0  # 1 did not land on the candidate brought back
        assert session.current.doc_id == first and session.current_grade is None
        assert "NOT SAVED" in str(screen.status_bar.saved)  # what the labeller sees, still
        await pilot.press("2")  # typed after the wait, having seen NOT SAVED: it grades
        await until(pilot, lambda: "\u2713 saved" in str(screen.status_bar.saved))
        assert session.judged_count == 1
    assert Project.open(project.path).qrels("alice")["grade"].to_list() == [2]


run_async_tests(globals())
