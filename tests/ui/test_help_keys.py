"""The help's key list: one row per binding with every key it answers to (j ↓ next, k ↑ previous,
not "j/k Next" and "k ↑ Previous"), beside the guidelines so that at 80x24 the keys of grading
are on screen on the first open (the reading keys below them scroll); a grade key pressed in the
guidelines closes them and grades nothing (the candidate under them was never in view), and says
so instead of vanishing."""

from __future__ import annotations

import io

from test_judge_support import MemoryWriter, run_async_tests, tiny_pool
from textual.widgets import Static

from goldset_tui.judging import JudgingSession
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.help import HelpScreen
from goldset_tui.ui.screens.judge import JudgeScreen


def rendered(renderable: object, width: int) -> str:
    from rich.console import Console

    console = Console(width=width, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


async def test_first_open_at_80x24_shows_every_key_and_a_grade_key_only_closes_it() -> None:
    s = JudgingSession(tiny_pool(), "alice", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        keys_box = app.screen.query_one("#help-keys-box")
        assert keys_box.region.height > 0 and keys_box.region.bottom <= 24
        text = rendered(app.screen.query_one("#help-keys").content, keys_box.region.width)
        # With the reading keys (home/end, line scroll, find, #, t) the list is longer than an
        # 80x24 box and scrolls; the keys a first sitting needs come first, above the fold.
        above_fold = "\n".join(text.splitlines()[: keys_box.region.height])
        for row in [
            "0 1 2 3 Grade",
            "j ↓ Next candidate",
            "k ↑ Previous candidate",
            "n Next query",
            "u Undo the last grade",
            "f Flag it for discussion",
        ]:
            assert row in above_fold, row
        assert "Find in this text" in text  # the reading keys are listed too, further down
        assert "j/k" not in text  # no pair under one row
        hint = str(app.screen.query_one(".dialog-hint", Static).content)
        assert "a grade key (0123) only closes this" in hint
        await pilot.press("2")
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, JudgeScreen)
        # The candidate was under the guidelines, never seen: nothing graded, and said.
        assert s.judged_count == 0 and s.grades_in_query()[0] is None
        status = str(app.screen.query_one("#status", Static).content)
        assert "nothing graded" in status, status
        await pilot.press("2")  # now in view: the same key grades it
        await pilot.pause()
        assert s.judged_count == 1 and s.grades_in_query()[0] == 2


async def test_a_grade_key_in_help_opened_later_grades_nothing_either() -> None:
    w = MemoryWriter()
    s = JudgingSession(tiny_pool(), "alice", writer=w)
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("1", "question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("3")
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, JudgeScreen)
        assert [j.grade for j in w.records] == [1] and s.judged_count == 1


async def test_other_keys_in_the_guidelines_do_nothing_to_the_pool() -> None:
    s = JudgingSession(tiny_pool(), "alice", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("u", "7", "x")  # not grades on a 0-3 scale
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen) and s.judged_count == 0


async def test_q_in_the_help_keeps_its_meaning_quit_here_and_escape_closes_it() -> None:
    # The help used to take q as "close"; q means back home (or quit) on every screen.
    w = MemoryWriter()
    s = JudgingSession(tiny_pool(), "alice", writer=w)
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        keys = rendered(app.screen.query_one("#help-keys").content, 60)
        assert "q Save and quit" in keys  # what q does in the dialog too
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, JudgeScreen) and app.is_running
        await pilot.press("question_mark", "q")
        await pilot.pause()
        assert not app.is_running
    assert w.closed == 1  # flushed on the way out


async def test_q_in_the_help_over_judging_goes_back_home(tmp_path) -> None:
    from test_home import make_graded_project, settle

    from goldset_tui.ui.screens.home import HomeScreen

    make_graded_project(tmp_path)
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        judge = app.screen
        assert isinstance(judge, JudgeScreen)
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        keys = rendered(app.screen.query_one("#help-keys").content, 60)
        assert "q Save, back to home" in keys
        await pilot.press("q")
        await settle(app, pilot)
        assert isinstance(app.screen, HomeScreen) and app.is_running
        assert judge._writer_closed


run_async_tests(globals())
