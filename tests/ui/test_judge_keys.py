"""Pilot tests of the judging screen: every key, the saved indicator, resume through the real store."""

from __future__ import annotations

import io
import json
from pathlib import Path

import polars as pl
import pytest
from test_judge_support import MemoryWriter, run_async_tests, tiny_pool

from goldset_tui.judging import JudgingSession
from goldset_tui.model import GradeScale
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.help import HelpScreen
from goldset_tui.ui.screens.judge import JudgeScreen
from goldset_tui.ui.screens.prompts import QueryPicker, TextPrompt


def app_for(session: JudgingSession, **kw) -> GoldsetApp:
    kw.setdefault("show_guidelines", False)
    return GoldsetApp(lambda: JudgeScreen(session, **kw))


def plain(app: GoldsetApp, widget_id: str) -> str:
    return str(app.screen.query_one(f"#{widget_id}").render())


@pytest.mark.parametrize("key,grade", [("0", 0), ("1", 1), ("2", 2), ("3", 3)])
async def test_grade_keys_record_and_advance(key: str, grade: int) -> None:
    w = MemoryWriter()
    s = JudgingSession(tiny_pool(), "alice", writer=w)
    first = s.current.doc_id
    async with app_for(s).run_test() as pilot:
        await pilot.press(key)
        await pilot.pause()
        assert [(j.doc_id, j.grade, j.position) for j in w.records] == [(first, grade, 0)]
        assert s.pos == 1
        assert f"saved #1={grade}" in plain(pilot.app, "saved")
        assert "query 1/4" in plain(pilot.app, "status")


async def test_numpad_digit_sequences_grade_too() -> None:
    # Application keypad mode sends ESC O q for keypad 1; Textual maps it to "1".
    from textual._ansi_sequences import ANSI_SEQUENCES_KEYS

    assert ANSI_SEQUENCES_KEYS["\x1bOq"] == "1"
    w = MemoryWriter()
    s = JudgingSession(tiny_pool(), "alice", writer=w)
    async with app_for(s).run_test() as pilot:
        await pilot.press("1")
        assert w.records[0].grade == 1


async def test_move_keys_and_query_keys() -> None:
    s = JudgingSession(tiny_pool(), "alice", writer=MemoryWriter())
    async with app_for(s).run_test() as pilot:
        await pilot.press("j", "down")
        assert s.pos == 2
        await pilot.press("k")
        assert s.pos == 1
        await pilot.press("up", "up")
        assert s.pos == 0
        await pilot.press("n")
        assert s.query_id == "q2"
        assert "Query 2/3" in plain(pilot.app, "query")
        await pilot.press("n", "n")
        assert s.query_id == "q3"
        await pilot.press("p")
        assert s.query_id == "q2"
        # The document shown is the current candidate's.
        assert s.current.doc_id in plain(pilot.app, "candidate")


async def test_finishing_a_query_goes_on_and_marks_it() -> None:
    s = JudgingSession(tiny_pool(2), "alice", writer=MemoryWriter())
    async with app_for(s).run_test() as pilot:
        await pilot.press("1", "2")
        assert s.query_id == "q2"
        await pilot.press("p")
        assert "\u2713 finished" in plain(pilot.app, "query")
        assert s.current_grade is not None  # revisit shows the grade
        await pilot.press("3")  # regrade
        assert s.overall_progress() == (2, 6)


async def test_undo_key() -> None:
    w = MemoryWriter()
    s = JudgingSession(tiny_pool(), "alice", writer=w)
    async with app_for(s).run_test() as pilot:
        await pilot.press("2", "u")
        assert w.undos == [("q1", w.records[0].doc_id)]
        assert s.pos == 0 and s.current_grade is None
        assert "undo" in plain(pilot.app, "saved")
        await pilot.press("u")  # nothing left: a notice, no journal record
        assert len(w.undos) == 1


async def test_note_key_saves_text_literally() -> None:
    w = MemoryWriter()
    s = JudgingSession(tiny_pool(), "alice", writer=w)
    async with app_for(s).run_test() as pilot:
        await pilot.press("c")
        assert isinstance(pilot.app.screen, TextPrompt)
        await pilot.press(*"[b]dup", "enter")
        assert w.notes == [("q1", s.current.doc_id, "[b]dup")]
        assert isinstance(pilot.app.screen, JudgeScreen)
        await pilot.press("c", "escape")
        assert len(w.notes) == 1


async def test_goto_key() -> None:
    s = JudgingSession(tiny_pool(), "alice", writer=MemoryWriter())
    async with app_for(s).run_test() as pilot:
        await pilot.press("g", *"q3", "enter")
        assert s.query_id == "q3"
        await pilot.press("g", *"nope", "enter")
        await pilot.pause()
        assert s.query_id == "q3"
        assert isinstance(pilot.app.screen, JudgeScreen)


async def test_search_key() -> None:
    s = JudgingSession(tiny_pool(), "alice", writer=MemoryWriter())
    async with app_for(s).run_test() as pilot:
        await pilot.press("slash")
        assert isinstance(pilot.app.screen, QueryPicker)
        await pilot.press(*"sqlite", "enter")
        assert s.query_id == "q2"


def rendered(renderable: object) -> str:
    from rich.console import Console

    console = Console(width=100, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


async def test_help_key_shows_guidelines_and_remapped_keys() -> None:
    s = JudgingSession(tiny_pool(), "alice", writer=MemoryWriter())
    app = GoldsetApp(
        lambda: JudgeScreen(s, guidelines="Grade [b]carefully[/b].", show_guidelines=False)
    )
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert "Grade [b]carefully[/b]." in str(app.screen.query_one("#help-guidelines").render())
        keys = rendered(app.screen.query_one("#help-keys").content)
        assert "(undo)" in keys and "(grade_0..grade_3)" in keys and "grade_9" not in keys
        await pilot.press("escape")
        assert isinstance(app.screen, JudgeScreen)


async def test_guidelines_shown_on_first_open_only() -> None:
    s = JudgingSession(tiny_pool(), "alice", writer=MemoryWriter())
    async with GoldsetApp(lambda: JudgeScreen(s)).run_test() as pilot:
        await pilot.pause()
        assert isinstance(pilot.app.screen, HelpScreen)
    judged = pl.DataFrame({"query_id": ["q1"], "doc_id": ["q1-d0"], "grade": [1]})
    s2 = JudgingSession(tiny_pool(), "alice", writer=MemoryWriter(), judged=judged)
    async with GoldsetApp(lambda: JudgeScreen(s2)).run_test() as pilot:
        await pilot.pause()
        assert isinstance(pilot.app.screen, JudgeScreen)


@pytest.mark.parametrize("key", ["q", "ctrl+q"])
async def test_quit_keys_flush_the_writer(key: str) -> None:
    w = MemoryWriter()
    s = JudgingSession(tiny_pool(), "alice", writer=w)
    app = app_for(s)
    async with app.run_test() as pilot:
        await pilot.press("1", key)
        await pilot.pause()
    assert w.closed == 1 and app.return_value == 0


async def test_a_close_that_fails_is_reported_not_raised() -> None:
    class BadClose(MemoryWriter):
        def close(self) -> None:
            raise OSError(5, "Input/output error")

    s = JudgingSession(tiny_pool(), "alice", writer=BadClose())
    app = app_for(s)
    async with app.run_test() as pilot:
        await pilot.press("1", "q")
        await pilot.pause()
    assert app.return_value == 0
    assert app.flush_errors and "Input/output error" in app.flush_errors[0]


async def test_failed_write_says_not_saved_and_stays() -> None:
    s = JudgingSession(tiny_pool(), "alice", writer=MemoryWriter(fail=True))
    async with app_for(s).run_test() as pilot:
        await pilot.press("2")
        assert "NOT SAVED" in plain(pilot.app, "saved")
        assert "saved #" not in plain(pilot.app, "saved")
        assert s.pos == 0 and s.overall_progress()[0] == 0


async def test_scale_from_manifest_changes_grade_keys() -> None:
    w = MemoryWriter()
    scale = GradeScale({1: "bad", 2: "meh", 3: "ok", 4: "good", 5: "great"})
    s = JudgingSession(tiny_pool(), "alice", writer=w, scale=scale)
    async with app_for(s).run_test() as pilot:
        await pilot.press("0")  # not on this scale: nothing happens
        assert w.records == []
        await pilot.press("5")
        assert [j.grade for j in w.records] == [5]
        assert "5 great" in plain(pilot.app, "scale")
        assert "0 not relevant" not in plain(pilot.app, "scale")


async def test_near_duplicates_marked_and_graded_alike() -> None:
    text = (
        "The rotate command replaces an api key without downtime; old keys stay valid for an hour."
    )
    rows = [
        {"query_id": "q", "query": "rotate api key", "doc_id": "a", "text": text},
        {"query_id": "q", "query": "rotate api key", "doc_id": "b", "text": text.upper() + "  "},
        {
            "query_id": "q",
            "query": "rotate api key",
            "doc_id": "c",
            "text": "Unrelated: sqlite locking.",
        },
    ]
    w = MemoryWriter()
    s = JudgingSession(pl.DataFrame(rows), "alice", writer=w)
    async with app_for(s).run_test(size=(120, 40)) as pilot:
        while s.current.doc_id != "a":
            await pilot.press("j")
        assert "near-duplicate" in plain(pilot.app, "candidate")
        await pilot.press("2", "d")  # d right after the grade: its near-duplicates alike
        assert sorted((j.doc_id, j.grade) for j in w.records) == [("a", 2), ("b", 2)]


async def test_reveal_shows_systems_and_blind_hides_them() -> None:
    s = JudgingSession(tiny_pool(systems=True), "alice", writer=MemoryWriter())
    async with app_for(s).run_test(size=(120, 40)) as pilot:
        assert "bm25" not in plain(pilot.app, "candidate")
    s2 = JudgingSession(tiny_pool(systems=True), "alice", writer=MemoryWriter())
    async with app_for(s2, reveal=True).run_test(size=(120, 40)) as pilot:
        c = s2.current
        assert f"bm25 #{c.ranks[0]}" in plain(pilot.app, "candidate")


async def test_keymap_from_config_remaps_grade_and_move(tmp_path: Path) -> None:
    from goldset_tui.config import load_config

    cfg = tmp_path / "config.toml"
    cfg.write_text('[keymap]\ngrade_2 = "2,f"\nnext = "l"\n', encoding="utf-8")
    w = MemoryWriter()
    s = JudgingSession(tiny_pool(), "alice", writer=w)
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False), config=load_config(cfg))
    async with app.run_test() as pilot:
        await pilot.press("l")
        assert s.pos == 1
        await pilot.press("j")  # remapped away
        assert s.pos == 1
        await pilot.press("f")
        assert [j.grade for j in w.records] == [2]


async def test_a_keymap_keeps_the_footer_in_order_at_80_columns(tmp_path: Path) -> None:
    # The README's own config example: Textual re-adds rebound bindings at the end, so at 80
    # columns "move" fell off the footer and "0" stood apart ("... q quit 0 grade 0").
    from textual.widgets._footer import FooterKey

    from goldset_tui.config import load_config

    cfg = tmp_path / "config.toml"
    cfg.write_text('[keymap]\ngrade_0 = "0,a"\nnext = "l,down"\n', encoding="utf-8")
    s = JudgingSession(tiny_pool(), "alice", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False), config=load_config(cfg))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        shown = [(k.description, k.region) for k in app.screen.query(FooterKey) if k.region.width]
        names = [name for name, _ in shown]
        assert "move" in names and "grade 0" not in names, names
        assert all(region.right <= 80 for _, region in shown), shown
        assert names.index("move") < names.index("undo"), names  # where the screen puts it
        await pilot.press("a")
        assert [j.grade for j in s.writer.records] == [0]  # type: ignore[union-attr]


async def test_scroll_and_more_keys_on_a_long_document() -> None:
    from goldset_tui.ui.widgets.judge_parts import TEXT_PAGE

    rows = [{"query_id": "q", "query": "x", "doc_id": "long", "text": "line of text\n" * 10_000}]
    s = JudgingSession(pl.DataFrame(rows), "alice", writer=MemoryWriter())
    async with app_for(s).run_test() as pilot:
        doc = pilot.app.screen.query_one("#doc")
        await pilot.press("space")
        await pilot.pause()
        assert doc.scroll_y > 0
        await pilot.press("pageup")
        await pilot.pause()
        assert doc.scroll_y == 0
        assert f"first {TEXT_PAGE:,} of" in plain(pilot.app, "text")
        await pilot.press("m")
        assert f"first {2 * TEXT_PAGE:,} of" in plain(pilot.app, "text")


async def test_command_palette_lists_screen_actions() -> None:
    s = JudgingSession(tiny_pool(), "alice", writer=MemoryWriter())
    app = app_for(s)
    async with app.run_test() as pilot:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert {"undo", "note", "goto", "find", "help"} <= set(titles)
        await pilot.pause()


async def test_a_failing_load_is_shown_and_q_still_quits() -> None:
    w = MemoryWriter()

    def broken() -> JudgingSession:
        raise MemoryError("pool too big for this machine")

    app = GoldsetApp(lambda: JudgeScreen(broken, writer=w, show_guidelines=False))
    async with app.run_test() as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert "pool too big" in plain(pilot.app, "query")
        await pilot.press("2")  # no session: grade keys do nothing
        await pilot.press("q")
        await pilot.pause()
    assert w.records == [] and w.closed == 1


# ----- resume through the real store (commands.judge wiring) ---------------------------------------
def write_pool(path: Path, per_query: int = 3) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for row in tiny_pool(per_query).to_dicts():
            fh.write(json.dumps(row) + "\n")
    return path


async def test_resume_on_first_unjudged_after_reopen(tmp_path: Path) -> None:
    from goldset_tui.commands.judge import make_screen, prepare
    from goldset_tui.store import Project

    pool = write_pool(tmp_path / "pool.jsonl")
    store = tmp_path / "store"
    screen = make_screen(prepare(pool, "alice", store=store))
    app = GoldsetApp(lambda: screen)
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press("escape")  # guidelines on first open
        await pilot.press("3", "2", "1", "0")  # q1 done, one in q2
        await pilot.pause()
        where = (screen.session.query_id, screen.session.current.doc_id)
        await pilot.press("q")
    assert where[0] == "q2"
    qrels = Project.open(store).qrels("alice")
    assert qrels.height == 4 and sorted(qrels["grade"].to_list()) == [0, 1, 2, 3]

    screen2 = make_screen(prepare(pool, "alice", store=store))
    async with GoldsetApp(lambda: screen2).run_test() as pilot:
        await pilot.pause()
        await pilot.pause()
        assert isinstance(pilot.app.screen, JudgeScreen)  # no guidelines: not the first open
        assert (screen2.session.query_id, screen2.session.current.doc_id) == where
        assert screen2.session.overall_progress() == (4, 9)
        await pilot.press("q")


async def test_notes_show_survive_reopen_and_can_be_cleared(tmp_path: Path) -> None:
    from goldset_tui.commands.judge import make_screen, prepare

    pool = write_pool(tmp_path / "pool.jsonl")
    screen = make_screen(prepare(pool, "cy", store=tmp_path / "s"))
    async with GoldsetApp(lambda: screen).run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await pilot.press("escape", "c", *"[red]dup of d2\x1b", "enter")
        doc = screen.session.current.doc_id
        assert "\u270e [red]dup of d2" in plain(pilot.app, "candidate")
        await pilot.press("q")
    screen2 = make_screen(prepare(pool, "cy", store=tmp_path / "s"))
    async with GoldsetApp(lambda: screen2).run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await pilot.press("escape")  # still no judgments: the guidelines come up again
        assert screen2.session.current.doc_id == doc  # nothing judged: same first candidate
        assert "[red]dup of d2" in plain(pilot.app, "candidate")
        await pilot.press("c")
        prompt = pilot.app.screen
        assert isinstance(prompt, TextPrompt)
        prompt.query_one("Input").value = ""
        await pilot.press("enter")
        assert "\u270e" not in plain(pilot.app, "candidate")
        await pilot.press("q")
    screen3 = make_screen(prepare(pool, "cy", store=tmp_path / "s"))
    assert screen3._make_session().current_note is None
    screen3.flush()


async def test_undo_of_a_regrade_restores_the_previous_grade_from_the_store(tmp_path: Path) -> None:
    from goldset_tui.commands.judge import make_screen, prepare
    from goldset_tui.store import Project

    pool = write_pool(tmp_path / "pool.jsonl")
    screen = make_screen(prepare(pool, "bob", store=tmp_path / "s"))
    async with GoldsetApp(lambda: screen).run_test() as pilot:
        await pilot.pause()
        await pilot.press("escape", "1", "k", "3", "u")
        await pilot.pause()
        assert screen.session.current_grade == 1
        await pilot.press("q")
    assert Project.open(tmp_path / "s").qrels("bob")["grade"].to_list() == [1]


run_async_tests(globals())
