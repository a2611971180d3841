"""The command palette on the judging screen reaches help, home and the review screens, and every
palette entry shows data as written (the palette parses markup; the app must escape it)."""

from __future__ import annotations

from pathlib import Path

import test_home as home
from hypothesis import given, settings
from hypothesis import strategies as st
from test_judge_support import MemoryWriter, run_async_tests, tiny_pool
from textual.content import Content

from goldset_tui.judging import JudgingSession
from goldset_tui.text import visible
from goldset_tui.ui.app import GoldsetApp, palette_text
from goldset_tui.ui.screens.help import HelpScreen
from goldset_tui.ui.screens.home import HomeScreen
from goldset_tui.ui.screens.judge import JudgeScreen
from goldset_tui.ui.screens.report import ReportScreen

MARKUPISH = st.text(
    alphabet=st.sampled_from(list("[]/\\@=$:'\"ab click.quit red \x1b\n")), max_size=40
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(MARKUPISH, st.text(max_size=40)))
def test_palette_text_is_drawn_exactly_as_written(text: str) -> None:
    # Content.from_markup is what the palette applies to titles and help (Textual 8.2.8).
    assert Content.from_markup(palette_text(text)).plain == visible(text, keep_newlines=False)


def test_palette_text_known_cases() -> None:
    for text in ["Bob [red]X", "[@click=app.quit]q[/]", "a\\[b]", "ends\\", "[[b]]", "$var [b]"]:
        assert Content.from_markup(palette_text(text)).plain == text
    assert Content.from_markup(palette_text("\x1b[31mred")).plain == "\u241b[31mred"


async def choose(app: GoldsetApp, pilot, query: str) -> list[str]:
    """Type ``query`` into the palette and press enter on the first entry; returns what was shown."""
    shown = await home.palette_entries(app, pilot, query)
    await pilot.press("enter")
    await home.settle(app, pilot)
    return shown


async def test_judging_from_home_palette_goes_home(tmp_path: Path) -> None:
    home.make_project(tmp_path, {"alice": 2})
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(100, 30)) as pilot:
        await home.settle(app, pilot)
        await pilot.press("enter")
        await home.settle(app, pilot)
        judge = app.screen
        assert isinstance(judge, JudgeScreen)
        await pilot.press("1")
        shown = await choose(app, pilot, "home")
        assert shown[0] == "home\nSave, back to home (key: q)"
        assert isinstance(app.screen, HomeScreen)
        assert judge._writer_closed  # left through the same door as q: flushed
        assert str(app.screen.query_one("#projects").get_row_at(0)[2]) == "3"


async def test_judging_from_home_palette_opens_the_review(tmp_path: Path) -> None:
    home.make_graded_project(tmp_path)
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(100, 30)) as pilot:
        await home.settle(app, pilot)
        await pilot.press("enter")  # alice's row
        await home.settle(app, pilot)
        assert isinstance(app.screen, JudgeScreen)
        shown = await choose(app, pilot, "review")
        assert shown[0].startswith("Review docs-pool with alice's judgments\n")
        for _ in range(20):  # the report is built in a worker, then pushed
            await home.settle(app, pilot)
            if isinstance(app.screen, ReportScreen):
                break
        assert isinstance(app.screen, ReportScreen)
        assert isinstance(app.screen_stack[-2], HomeScreen)  # escape/q lead home, not to judging


async def test_palette_help_entry_and_no_home_when_opened_directly() -> None:
    app = GoldsetApp(
        lambda: JudgeScreen(
            JudgingSession(tiny_pool(), "alice", writer=MemoryWriter()), show_guidelines=False
        )
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Help: guidelines and keys" in titles
        assert not any(t.startswith("Home") or t.startswith("Review") for t in titles)
        await choose(app, pilot, "guidelines")
        assert isinstance(app.screen, HelpScreen)


run_async_tests(globals())
