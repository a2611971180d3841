"""The help's key list: one row per binding with every key it answers to (j ↓ next, k ↑ previous,
not "j/k Next" and "k ↑ Previous"), beside the guidelines so that at 80x24 it is on screen on the
first open; a grade key pressed in the guidelines closes them and grades instead of vanishing."""

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


async def test_first_open_at_80x24_shows_every_key_and_a_grade_key_grades() -> None:
    s = JudgingSession(tiny_pool(), "alice", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        keys_box = app.screen.query_one("#help-keys-box")
        assert keys_box.max_scroll_y == 0  # the whole list fits: nothing below the fold
        assert keys_box.region.height > 0 and keys_box.region.bottom <= 24
        text = rendered(app.screen.query_one("#help-keys").content, keys_box.region.width)
        for row in [
            "0 1 2 3 Grade",
            "j ↓ Next candidate",
            "k ↑ Previous candidate",
            "n Next query",
        ]:
            assert row in text, row
        assert "j/k" not in text  # no pair under one row
        hint = str(app.screen.query_one(".dialog-hint", Static).content)
        assert "a grade key (0123) closes this and grades" in hint
        await pilot.press("2")
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, JudgeScreen)
        assert s.judged_count == 1 and s.grades_in_query()[0] == 2


async def test_other_keys_in_the_guidelines_do_nothing_to_the_pool() -> None:
    s = JudgingSession(tiny_pool(), "alice", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("u", "7", "x")  # not grades on a 0-3 scale
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen) and s.judged_count == 0


run_async_tests(globals())
