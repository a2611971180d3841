"""No grade for a document nobody saw, and corrections and undo that keep the labeller in place.

- Keys typed while "Loading the pool..." is on screen are dropped (counted, said once), even when
  Textual hands them to the screen after the pool arrived: a digit became a grade, and ``g``
  opened a dialog the rest of the type-ahead went into.
- A grade key in the guidelines (a first sitting) only closes them: see test_help_keys.py.
- ``d`` is armed only right after a grade: undo or any movement disarms it.
- Re-grading a judged candidate stays on it and says what changed ("#2: 1 → 3").
- One ``u`` takes back a whole ``d`` group, and ``u`` after a reconnect takes back the last grade
  of the session before, read from the store.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import polars as pl
import pytest
from save_gates import until
from test_judge_support import MemoryWriter, run_async_tests, tiny_pool
from textual import events
from textual.widgets import Static

from goldset_tui.commands.judge import make_screen, prepare
from goldset_tui.judging import JudgingSession
from goldset_tui.store import Project
from goldset_tui.store.journal import Journal
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.help import HelpScreen
from goldset_tui.ui.screens.judge import JudgeScreen

SAMPLE_POOL = Path(__file__).resolve().parents[2] / "sample_data" / "pool.jsonl"
SAME = "Rotate an API key: create a second key, deploy it, then revoke the first one for good."


def text(app: GoldsetApp, widget_id: str) -> str:
    return str(app.screen.query_one(f"#{widget_id}", Static).content)


def drawn(screen: JudgeScreen) -> bool:
    """The session is on the screen, its first candidate's line filled in and drawn (keys count
    from then on; a screen without that flag, as before it existed, took keys at once)."""
    line = str(screen.query_one("#candidate", Static).content)
    return screen.session is not None and bool(line) and getattr(screen, "ready_for_keys", True)


def typed(*keys: str) -> list[events.Key]:
    """Keys as the terminal reads them, stamped now (while the pool is loading)."""
    return [events.Key(k, k if len(k) == 1 else None) for k in keys]


def deliver_after_load(app: GoldsetApp, keys: list[events.Key]) -> None:
    """Hand ``keys`` to the app right after the loaded session reached the screen, before it
    could draw: what Textual does with keys queued behind a slow load on a busy machine."""
    real = app.call_from_thread
    pending = list(keys)

    def late(callback, *args, **kwargs):
        if getattr(callback, "__name__", "") != "_ready":
            return real(callback, *args, **kwargs)  # other workers' calls: as they were

        def then():
            out = callback(*args, **kwargs)
            while pending:  # once: a key is typed once
                app.post_message(pending.pop(0))
            return out

        return real(then)

    app.call_from_thread = late  # type: ignore[method-assign]


def deliver_after_first_frame(screen: JudgeScreen, keys: list[events.Key]) -> None:
    """Hand ``keys`` to the app right after the first frame was drawn: type-ahead still queued
    behind the load when the guidelines' refresh ran first (it and the app's key queue are
    separate tasks: on a loaded machine either can come first)."""
    real = screen._first_drawn

    def then() -> None:
        real()
        for key in keys:
            screen.app.post_message(key)

    screen._first_drawn = then  # type: ignore[method-assign]


def said_about_type_ahead(app: GoldsetApp) -> list[str]:
    """Every line on screen about ignored type-ahead: notices, and the guidelines' own line."""
    said = [str(n.message) for n in app._notifications]
    said += [str(w.content) for w in app.screen.query("#help-notice") if w.display]
    return [m for m in said if "typed while loading" in m]


@pytest.mark.typeahead
async def test_keys_typed_while_loading_never_grade_move_or_open_a_dialog() -> None:
    w = MemoryWriter()
    gate = threading.Event()
    built: list[JudgingSession] = []

    def slow_load() -> JudgingSession:
        gate.wait(10)  # the pool is still loading until the test says
        built.append(JudgingSession(tiny_pool(), "alice", writer=w))
        return built[0]

    app = GoldsetApp(lambda: JudgeScreen(slow_load, writer=w, show_guidelines=False))
    async with app.run_test(size=(100, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, JudgeScreen)
        assert "Loading the pool" in text(app, "query")
        await pilot.press("2", "j", "g", "d", "u")  # handled while loading
        loading_line = text(app, "query")
        # Typed while loading too, but handled only once the session is on the screen.
        deliver_after_load(app, typed("3", "g", "q", "1", "enter", "j", "1"))
        gate.set()
        await until(pilot, lambda: drawn(screen))
        await pilot.pause()
        await pilot.pause()
        s = built[0]
        assert w.records == [] and s.judged_count == 0  # no grade for an unseen candidate
        assert app.screen is screen  # no dialog opened, no quit, no blank screen
        assert (s.qi, s.pos) == (0, 0)  # no movement either
        assert "12 keys typed while loading were ignored" in text(app, "status")
        assert "5 keys typed meanwhile: ignored" in loading_line  # said while it loaded, too
        shown = s.current.doc_id
        await pilot.press("2")  # the first candidate is on the screen now: a grade
        await pilot.pause()
        assert [(j.doc_id, j.grade) for j in w.records] == [(shown, 2)]


async def test_a_key_typed_once_the_candidate_is_shown_waits_for_its_frame() -> None:
    # Typed after the candidate went on the screen but handled before its frame was drawn (a
    # key pressed the instant it appeared): not lost, and not acted on before the frame.
    w = MemoryWriter()
    s = JudgingSession(tiny_pool(), "alice", writer=w)
    app = GoldsetApp(lambda: JudgeScreen(lambda: s, writer=w, show_guidelines=False))
    real = app.call_from_thread

    def late(callback, *args, **kwargs):
        def then():
            out = callback(*args, **kwargs)
            if getattr(callback, "__name__", "") == "_ready":
                app.post_message(events.Key("1", "1"))  # stamped now: after it was shown
            return out

        return real(then)

    app.call_from_thread = late  # type: ignore[method-assign]
    first = s.current.doc_id
    async with app.run_test(size=(100, 24)) as pilot:
        screen = app.screen
        await until(pilot, lambda: len(w.records) == 1)
        await pilot.pause()
        assert [(j.doc_id, j.grade) for j in w.records] == [(first, 1)]
        assert screen.ignored_keys == 0


async def test_type_ahead_into_the_first_sitting_guidelines_does_nothing(tmp_path: Path) -> None:
    # `goldset demo --fresh`, 2 pressed while loading: it reached the guidelines that open on a
    # first sitting, which passed it on as a grade for the candidate under them.
    screen = make_screen(prepare(SAMPLE_POOL, "ana", store=tmp_path / "store"))
    app = GoldsetApp(lambda: screen)
    deliver_after_load(app, typed("2", "q"))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: drawn(screen) and isinstance(app.screen, HelpScreen))
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen) and app.is_running  # q typed ahead: no quit
        assert screen.session is not None and screen.session.judged_count == 0
        # Said over the guidelines (the status line is under them).
        assert said_about_type_ahead(app) == [
            "2 keys typed while loading were ignored: nothing graded."
        ]
        await pilot.press("2")  # typed with the guidelines in view: closes them, grades nothing
        await pilot.pause()
        assert app.screen is screen and screen.session.judged_count == 0
    screen.flush()
    assert Project.open(tmp_path / "store").qrels("ana").height == 0


async def test_type_ahead_handled_after_the_first_frame_is_said_once_with_its_count(
    tmp_path: Path,
) -> None:
    # `goldset demo --fresh` on a loaded machine: the first sitting's guidelines were drawn before
    # some of the keys typed while loading were handled. Each of those said the count so far in
    # a notice of its own, eight stacked notices, and the last one (the count) was out of view.
    screen = make_screen(prepare(SAMPLE_POOL, "ana", store=tmp_path / "store"))
    app = GoldsetApp(lambda: screen)
    deliver_after_load(app, typed("2"))  # handled before the first frame
    deliver_after_first_frame(screen, typed("g", "q", "0", "1", "enter", "j", "3"))  # and after
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: screen.ignored_keys == 8)
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen) and app.is_running  # no quit, not closed
        assert screen.session is not None and screen.session.judged_count == 0
        said = said_about_type_ahead(app)
        assert said == ["8 keys typed while loading were ignored: nothing graded."], said
        await pilot.press("escape")  # closed by a key typed with them in view
        await pilot.pause()
        assert app.screen is screen
        assert "8 keys typed while loading were ignored" in text(app, "status")


def two_groups(queries: tuple[str, ...] = ("q1",)) -> pl.DataFrame:
    other = "Configure the proxy timeout in the settings file and restart the daemon to apply it."
    rows = []
    for q in queries:
        rows += [
            {"query_id": q, "query": "rotate", "doc_id": f"{q}a{i}", "text": SAME} for i in range(3)
        ]
        rows += [
            {"query_id": q, "query": "rotate", "doc_id": f"{q}b{i}", "text": other}
            for i in range(2)
        ]
        rows += [
            {"query_id": q, "query": "rotate", "doc_id": f"{q}z{i}", "text": f"Alone {i} " * 9}
            for i in range(3)
        ]
    return pl.DataFrame(rows)


def grades_of(s: JudgingSession, prefix: str, qi: int = 0) -> list[int | None]:
    rows = s._view(qi).rows
    return [s.grade_at(i, qi) for i, r in enumerate(rows) if r["doc_id"].startswith(prefix)]


async def go_to(pilot, s: JudgingSession, prefix: str) -> None:
    while not s.current.doc_id.startswith(prefix):
        await pilot.press("j" if s.pos < s.size - 1 else "n")


async def test_d_is_disarmed_by_undo() -> None:
    # The offer survived u: d then re-graded near-duplicates the labeller had just undone.
    s = JudgingSession(two_groups(), "ana", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await go_to(pilot, s, "q1a")
        await pilot.press("3", "d")
        assert grades_of(s, "q1a") == [3, 3, 3]
        await pilot.press("u")  # the group d gave
        await pilot.pause()
        assert grades_of(s, "q1a").count(3) == 1
        assert "d: grade" not in text(app, "candidate"), text(app, "candidate")
        await pilot.press("d")  # disarmed: it re-grades nothing
        await pilot.pause()
        assert grades_of(s, "q1a").count(3) == 1
        await pilot.press("u", "d")
        await pilot.pause()
        assert grades_of(s, "q1a") == [None, None, None]


async def test_d_is_disarmed_by_going_to_another_query_and_back() -> None:
    s = JudgingSession(two_groups(("q1", "q2")), "ana", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await go_to(pilot, s, "q1a")
        await pilot.press("2")
        assert "d: grade" in text(app, "candidate")  # armed right after the grade
        await pilot.press("g", *"q2", "enter")
        await pilot.pause()
        await pilot.press("g", *"q1", "enter")
        await pilot.pause()
        assert s.query_id == "q1"
        assert "d: grade" not in text(app, "candidate"), text(app, "candidate")
        await pilot.press("d")
        await pilot.pause()
        assert grades_of(s, "q1a").count(2) == 1  # only the one graded


async def test_re_grading_stays_on_the_candidate_and_says_what_changed() -> None:
    # Re-grading a judged candidate jumped to the next unjudged one (another query when this one
    # was done), so the next k landed on the wrong candidate.
    w = MemoryWriter()
    s = JudgingSession(tiny_pool(3), "alice", writer=w)
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.press("1", "2", "0")  # q1 done: on to q2's first
        assert s.query_id == "q2"
        await pilot.press("k")  # stays (first of q2)
        await pilot.press("p")  # back to q1: all judged, so its first
        assert (s.query_id, s.pos) == ("q1", 0)
        await pilot.press("j")
        assert s.pos == 1 and s.current_grade == 2
        await pilot.press("3")  # a correction
        await pilot.pause()
        assert (s.query_id, s.pos) == ("q1", 1) and s.current_grade == 3  # stayed
        assert "#2: 2 \u2192 3" in text(app, "status"), text(app, "status")
        assert "#2: 2 \u2192 3" in text(app, "saved"), text(app, "saved")
        await pilot.press("k")
        assert (s.query_id, s.pos) == ("q1", 0)  # k means the one before it
        assert [(j.doc_id, j.grade) for j in w.records][-1] == (s._view(0).rows[1]["doc_id"], 3)


async def test_re_grade_saved_in_the_background_keeps_its_arrow(tmp_path: Path) -> None:
    screen = make_screen(prepare(SAMPLE_POOL, "ana", store=tmp_path / "store"))
    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: drawn(screen) and isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        s = screen.session
        await pilot.press("1")
        await until(pilot, lambda: "saved #1=1" in text(app, "saved"))
        await pilot.press("k", "2")
        await until(pilot, lambda: "\u2713 saved #1: 1 \u2192 2" in text(app, "saved"))
        assert s.pos == 0 and s.current_grade == 2
    screen.flush()
    qrels = Project.open(tmp_path / "store").qrels("ana")
    assert qrels["grade"].to_list() == [2]


def group_pool(path: Path, alike: int) -> Path:
    rows = [
        {"query_id": "q1", "query": "rotate key", "doc_id": f"same{i:05d}", "text": SAME}
        for i in range(alike)
    ] + [
        {"query_id": "q1", "query": "rotate key", "doc_id": f"other{i}", "text": f"Lone {i} " * 9}
        for i in range(2)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def open_screen(pool: Path, store: Path):
    return make_screen(prepare(pool, "ana", store=store))


async def test_one_u_undoes_a_whole_d_group(tmp_path: Path, monkeypatch) -> None:
    # 2,999 near-duplicates graded with one d took 2,999 presses of u to take back.
    writes: list[int] = []  # journal writes: one per undo, or one for all of them
    real_one, real_many = Journal.append, Journal.append_many
    monkeypatch.setattr(Journal, "append", lambda j, r: (writes.append(1), real_one(j, r))[1])
    monkeypatch.setattr(
        Journal, "append_many", lambda j, rs: (writes.append(len(rs)), real_many(j, rs))[1]
    )
    pool = group_pool(tmp_path / "pool.jsonl", 600)  # graded in a worker (> 200)
    store = tmp_path / "store"
    screen = open_screen(pool, store)
    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(100, 24)) as pilot:
        await until(pilot, lambda: drawn(screen) and isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        s = screen.session
        await go_to(pilot, s, "same")
        await pilot.press("3", "d")
        await until(pilot, lambda: screen.grouping is None and s.judged_count == 600)
        writes.clear()
        await pilot.press("u")  # one key: the 599 d gave
        await pilot.pause()
        assert s.judged_count == 1, s.judged_count
        assert writes == [599]  # in one journal write (one fsync), durable before "saved"
        assert "undo 599 near-duplicates" in text(app, "saved")
        assert s.current.doc_id.startswith("same") and s.current_grade is None
        await pilot.press("u")  # then the one graded by hand
        await pilot.pause()
        assert s.judged_count == 0
    screen.flush()
    project = Project.open(store)
    assert project.qrels("ana").height == 0
    history = project.judgments("ana", history=True)
    assert history["kind"].to_list().count("undo") == 600


async def test_u_after_a_reconnect_undoes_the_session_before(tmp_path: Path) -> None:
    # After an SSH drop, u said "Nothing to undo": the journal holds the history it needs.
    pool = group_pool(tmp_path / "pool.jsonl", 30)
    store = tmp_path / "store"
    screen = open_screen(pool, store)
    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(100, 24)) as pilot:
        await until(pilot, lambda: drawn(screen) and isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        s = screen.session
        await go_to(pilot, s, "same")
        await pilot.press("2", "d")
        await until(pilot, lambda: s.judged_count == 30)
        await go_to(pilot, s, "other")
        last = s.current.doc_id
        await pilot.press("1")
        await pilot.pause()
    screen.flush()  # the connection dropped: the app and its memory are gone
    assert Project.open(store).qrels("ana").height == 31

    screen = open_screen(pool, store)
    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(100, 24)) as pilot:
        await until(pilot, lambda: drawn(screen))
        await pilot.pause()
        s = screen.session
        assert s.judged_count == 31
        await pilot.press("u")
        await pilot.pause()
        assert "Nothing to undo" not in text(app, "status"), text(app, "status")
        assert s.judged_count == 30 and s.current.doc_id == last  # back on it
        await pilot.press("u")  # the group, in one key
        await pilot.pause()
        assert s.judged_count == 1, s.judged_count
        await pilot.press("u", "u")
        await pilot.pause()
        assert s.judged_count == 0
        assert "Nothing to undo" in text(app, "status")
    screen.flush()
    assert Project.open(store).qrels("ana").height == 0


run_async_tests(globals())
