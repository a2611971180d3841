"""Smaller points of the screens: the palette lists Quit once; Enter on an empty home screen says
what to do; the demo's project is named "demo" on the home screen, not "pool" like any other pool
file; the finished tick in the `/` search has no colour of its own (green on the highlighted row
read at about 1.6:1 in 256 colours)."""

from __future__ import annotations

from test_judge_support import MemoryWriter, run_async_tests, tiny_pool

from goldset_tui.judging import JudgingSession
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.home import HomeScreen
from goldset_tui.ui.screens.judge import JudgeScreen
from goldset_tui.ui.screens.prompts import QueryPicker


async def test_the_palette_lists_quit_once() -> None:
    for make in (
        HomeScreen,
        lambda: JudgeScreen(
            JudgingSession(tiny_pool(), "ana", writer=MemoryWriter()), show_guidelines=False
        ),
    ):
        app = GoldsetApp(make)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            titles = [str(c.title).lower() for c in app.get_system_commands(app.screen)]
            assert titles.count("quit") == 1, titles


async def test_enter_on_an_empty_home_screen_says_what_to_do() -> None:
    app = GoldsetApp(HomeScreen)
    async with app.run_test(notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        messages = [n.message for n in app._notifications]
        assert any("goldset demo" in m for m in messages), messages


async def test_the_finished_tick_in_search_has_no_colour_of_its_own() -> None:
    s = JudgingSession(tiny_pool(2), "ana", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("1", "1", "slash")  # q1 finished
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, QueryPicker)
        option = picker.query_one("#picker-list").get_option_at_index(0)
        styles = {str(span.style) for span in option.prompt.spans}
        assert "\u2713" in option.prompt.plain
        assert not any("green" in style for style in styles), styles


run_async_tests(globals())
