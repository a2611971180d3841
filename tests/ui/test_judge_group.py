"""`d` gives a near-duplicate group one grade: right after grading one of them (grading has moved
on to the next member, ungraded) it means the one just graded; a group of thousands is graded in
a worker with progress in the status line, each judgment durable, the screen never frozen."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

import polars as pl
from test_judge_support import MemoryWriter, run_async_tests
from textual.pilot import Pilot
from textual.widgets import Static

from goldset_tui.commands.judge import make_screen, prepare
from goldset_tui.judging import JudgingSession
from goldset_tui.store import Project
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen
from goldset_tui.ui.widgets.judge_group import GroupGrading

SAME = "Rotate an API key: create a second key, deploy it, then revoke the first one for good."


def pool(alike: int, other: int = 2) -> pl.DataFrame:
    rows = [
        {"query_id": "q1", "query": "rotate key", "doc_id": f"same{i:05d}", "text": SAME}
        for i in range(alike)
    ]
    rows += [
        {
            "query_id": "q1",
            "query": "rotate key",
            "doc_id": f"other{i}",
            "text": f"Unrelated {i} " * 9,
        }
        for i in range(other)
    ]
    return pl.DataFrame(rows)


def status(app: GoldsetApp) -> str:
    return str(app.screen.query_one("#status", Static).content)


async def test_d_right_after_a_grade_means_the_candidate_just_graded() -> None:
    s = JudgingSession(pool(3), "ana", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        while not s.current.doc_id.startswith("same"):
            await pilot.press("j")
        first = s.pos
        await pilot.press("2")  # grading moves on; the current candidate is not graded
        assert s.current_grade is None
        await pilot.press("d")
        await pilot.pause()
        graded = [
            g
            for g, row in zip(s.grades_in_query(), s._view(0).rows, strict=True)
            if row["doc_id"].startswith("same")
        ]
        assert graded == [2, 2, 2], graded
        assert "Grade this candidate first" not in status(app)
        assert "2 near-duplicate(s) = 2" in str(app.screen.query_one("#saved", Static).content)
        assert s.grade_at(first) == 2


async def test_a_large_group_is_graded_in_a_worker_with_progress(tmp_path: Path) -> None:
    path = tmp_path / "pool.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in pool(600).to_dicts()), encoding="utf-8")
    screen = make_screen(prepare(path, "ana", store=tmp_path / "store"))
    progress: list[str] = []

    def hook(message: object) -> None:
        if isinstance(message, GroupGrading.Progress):
            progress.append(f"{message.done}/{message.total}")

    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("escape")  # the guidelines of a first open
        s = screen.session
        while not s.current.doc_id.startswith("same"):
            await pilot.press("j")
        await pilot.press("3", "d")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert progress and progress[-1] == "599/599"
        assert "599 near-duplicate(s) = 3" in str(screen.query_one("#saved", Static).content)
    screen.flush()
    judged = Project.open(tmp_path / "store").judgments("ana")
    assert judged.filter(pl.col("doc_id").str.starts_with("same"))["grade"].to_list() == [3] * 600


async def test_leaving_during_a_group_run_stops_it_and_keeps_what_was_saved(tmp_path: Path) -> None:
    path = tmp_path / "pool.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in pool(3000).to_dicts()), encoding="utf-8")
    screen = make_screen(prepare(path, "ana", store=tmp_path / "store"))
    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("escape")
        s = screen.session
        while not s.current.doc_id.startswith("same"):
            await pilot.press("j")
        await pilot.press("1", "d", "q")  # q at once: the run stops between two judgments
        await pilot.pause()
    judged = Project.open(tmp_path / "store").judgments("ana")
    assert judged.height >= 1 and set(judged["grade"].to_list()) == {1}


async def test_grade_keys_during_a_group_run_are_refused_and_said(tmp_path: Path) -> None:
    # The worker holds the session while it grades the group: a grade key on the UI thread at
    # that moment would change the same counts from two threads. The worker is held inside its
    # first batch by a gate (no sleeps), the key pressed, then the worker let go.
    path = tmp_path / "pool.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in pool(600).to_dicts()), encoding="utf-8")
    screen = make_screen(prepare(path, "ana", store=tmp_path / "store"))
    app = GoldsetApp(lambda: screen)
    entered, gate = threading.Event(), threading.Event()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("escape")  # the guidelines of a first open
        s = screen.session
        while not s.current.doc_id.startswith("same"):
            await pilot.press("j")
        real = s.writer.record_many

        def held(judgments: list) -> list:
            entered.set()
            gate.wait(10)
            return real(judgments)

        s.writer.record_many = held
        await pilot.press("3", "d")
        assert await asyncio.to_thread(entered.wait, 10)  # the worker is inside its first batch
        counted, current = s.judged_count, s.current.doc_id
        await pilot.press("1", "0")
        await pilot.pause()
        assert s.judged_count == counted and s.current.doc_id == current  # nothing graded
        assert status(app).startswith("Keys wait:"), status(app)
        assert "near-duplicates" in status(app)
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.grouping is None
        assert "599 near-duplicate(s) = 3" in str(screen.query_one("#saved", Static).content)
        while s.current.doc_id.startswith("same"):  # keys work again once it is done
            await pilot.press("j")
        await pilot.press("2")
        await pilot.pause()
        assert s.judged_count == 601
    screen.flush()
    judged = Project.open(tmp_path / "store").judgments("ana")
    assert judged.filter(pl.col("doc_id").str.starts_with("same"))["grade"].to_list() == [3] * 600
    assert judged["grade"].to_list().count(2) == 1 and 1 not in judged["grade"].to_list()


def candidate(app: GoldsetApp) -> str:
    return str(app.screen.query_one("#candidate", Static).content)


def two_groups() -> pl.DataFrame:
    # Shown order is the labeller's blind order: the test finds positions by doc id.
    rows = [
        {"query_id": "q1", "query": "rotate key", "doc_id": f"a{i}", "text": SAME} for i in range(3)
    ]
    other = "Configure the proxy timeout in the settings file and restart the daemon to apply it."
    rows += [
        {"query_id": "q1", "query": "rotate key", "doc_id": f"b{i}", "text": other}
        for i in range(2)
    ]
    rows += [
        {"query_id": "q1", "query": "rotate key", "doc_id": f"z{i}", "text": f"Alone {i} " * 9}
        for i in range(3)
    ]
    return pl.DataFrame(rows)


async def graded_then_moved(
    pilot: Pilot, s: JudgingSession, *, graded: str, key: str, to: str
) -> tuple[list[dict], int, int]:
    """Grade (with ``key``) the first shown candidate whose doc id starts with ``graded``, then
    go to the first starting with ``to`` and redraw: the shown rows and the two positions."""
    await pilot.pause()
    rows = s._view(0).rows
    first, then = (
        next(i for i, r in enumerate(rows) if r["doc_id"].startswith(p)) for p in (graded, to)
    )
    s.move(first - s.pos)
    await pilot.press(key)
    s.move(then - s.pos)
    pilot.app.screen.refresh_view()
    await pilot.pause()
    return rows, first, then


async def test_after_grading_a_lone_candidate_the_line_and_d_both_mean_the_current_one() -> None:
    # The audit's case: #1 (no near-duplicates) graded, the screen moved to a candidate with
    # near-duplicates and said "d: grade all alike", while d answered about #1.
    s = JudgingSession(two_groups(), "ana", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(120, 40)) as pilot:
        # Graded the lone one; now onto an ungraded candidate with near-duplicates.
        rows, _, dup = await graded_then_moved(pilot, s, graded="z", key="1", to="a")
        line = candidate(app)
        assert "near-duplicate of" in line and "grade it, then d grades them alike" in line, line
        await pilot.press("d")
        await pilot.pause()
        assert f"Grade #{dup + 1} first" in status(app), status(app)
        assert all(s.grade_at(i) is None for i, r in enumerate(rows) if r["doc_id"][0] == "a")
        await pilot.press("2")  # as the line said: grade it, then d
        await pilot.pause()  # on the next unjudged candidate: d means the one just graded
        assert s.current_grade is None
        assert f"d: grade #{dup + 1}'s 2 near-duplicates 2" in candidate(app), candidate(app)
        # Done as it asked: the status line no longer says to grade it first (it stayed 5 s).
        assert "first" not in status(app), status(app)


async def test_after_grading_one_of_a_group_and_moving_away_d_is_disarmed() -> None:
    # d used to stay armed for the group graded last after the labeller moved on (j, a query
    # picked): the line offered it over another group's candidate and d re-graded it. Any
    # movement disarms it; the line speaks only of the candidate under the cursor.
    s = JudgingSession(two_groups(), "ana", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(120, 40)) as pilot:
        # One of group a graded, then onto an ungraded candidate of another group.
        rows, a, _ = await graded_then_moved(pilot, s, graded="a", key="3", to="b")
        line = candidate(app)
        assert f"#{a + 1}'s" not in line and "grade it, then d grades them alike" in line, line
        await pilot.press("d")
        await pilot.pause()
        grades = {r["doc_id"]: s.grade_at(i) for i, r in enumerate(rows)}
        assert [grades[f"a{i}"] for i in range(3)].count(3) == 1, grades  # only the one graded
        assert [grades[f"b{i}"] for i in range(2)] == [None, None], grades
        assert "first" in status(app), status(app)  # d says to grade this one first


run_async_tests(globals())
