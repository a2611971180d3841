"""One way out of every screen reachable from home: Escape goes back one screen, q goes back to
the home screen (and quits from home, or from a screen a command opened directly); the footer says
"q home" or "q quit" accordingly."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_home import make_graded_project, settle
from test_judge_support import run_async_tests, tiny_pool

from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.home import HomeScreen
from goldset_tui.ui.screens.judge import JudgeScreen


def footer_text(app: GoldsetApp) -> str:
    return " ".join(
        f"{key} {active.binding.description}"
        for key, active in app.screen.active_bindings.items()
        if active.binding.show
    )


# key on home -> the screens it opens, with the keys that go deeper from there
ROUTES = {
    "enter": ["JudgeScreen"],  # judge as the selected labeller
    "v": ["ReportScreen", "FailuresScreen", "TopKScreen"],  # report, enter, enter
    "c": ["ClosureScreen"],
    "A": ["AgreementScreen"],
}


async def open_route(app: GoldsetApp, pilot, key: str, depth: int) -> None:
    await pilot.press(key)
    await settle(app, pilot)
    for _ in range(20):  # a report is built in a worker before it opens
        if not isinstance(app.screen, HomeScreen):
            break
        await settle(app, pilot)
    if depth:
        await pilot.press("right", "right", "right")  # dense's cell: it fails one query
    for _ in range(depth):
        await pilot.press("enter")
        await settle(app, pilot)


@pytest.mark.parametrize("key", list(ROUTES))
async def test_escape_goes_back_one_screen_and_q_goes_home(tmp_path: Path, key: str) -> None:
    make_graded_project(tmp_path)
    app = GoldsetApp(HomeScreen)
    names = ROUTES[key]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert "q quit" in footer_text(app) and "escape" not in footer_text(app)
        await open_route(app, pilot, key, len(names) - 1)
        assert [type(s).__name__ for s in app.screen_stack[2:]] == names
        footer = footer_text(app)
        assert "q home" in footer, footer
        # Escape is in the footer too, judging's included (it used to be left out at any width).
        assert "escape back" in footer, footer
        # Escape: one screen back at a time, all the way home.
        for depth in range(len(names), 0, -1):
            assert type(app.screen).__name__ == names[depth - 1]
            await pilot.press("escape")
            await settle(app, pilot)
        assert isinstance(app.screen, HomeScreen) and app.is_running
        # q: from the deepest screen straight home, flushing what judging holds.
        await open_route(app, pilot, key, len(names) - 1)
        deepest = app.screen
        await pilot.press("q")
        await settle(app, pilot)
        assert isinstance(app.screen, HomeScreen) and app.is_running
        if isinstance(deepest, JudgeScreen):
            assert deepest._writer_closed
        await pilot.press("q")  # home: quits
        await settle(app, pilot)
        assert not app.is_running


async def test_a_screen_opened_directly_says_q_quits_and_escape_is_unused(tmp_path: Path) -> None:

    from goldset_tui.judging import JudgingSession

    app = GoldsetApp(
        lambda: JudgeScreen(JudgingSession(tiny_pool(3), "ana"), show_guidelines=False)
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        footer = footer_text(app)
        assert "q quit" in footer and "back" not in footer
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.is_running and isinstance(app.screen, JudgeScreen)
        await pilot.press("q")
        await settle(app, pilot)
        assert not app.is_running


@pytest.mark.parametrize("width", [80, 89, 90, 120, 160])
async def test_judging_from_home_shows_esc_back_and_q_home_whole(
    tmp_path: Path, width: int
) -> None:
    # The footer as laid out: "esc back" at every width, beside the grade keys and a whole
    # "q home", every entry inside the screen; below 90 columns "g goto" and "/ find" give way.
    import html
    import re

    from textual.widgets import Footer

    make_graded_project(tmp_path)
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(app, pilot)
        await open_route(app, pilot, "enter", 0)
        assert isinstance(app.screen, JudgeScreen)
        entries = app.screen.query_one(Footer).query_children("FooterKey")
        assert all(entry.region.right <= width for entry in entries)
        footer = " ".join(f"{e.key_display} {e.description}" for e in entries)
        assert footer.startswith("j/k move n/p query u undo d dups c note"), footer
        assert footer.endswith("? help esc back q home"), footer
        assert ("g goto / find" in footer) == (width >= 90), footer
        grades = app.screen.query_one(Footer).query("KeyGroup")
        assert len(grades) == 1 and grades.first().region.right <= width
        if width == 160:  # a terminal made narrow while judging: the footer follows
            await pilot.resize_terminal(80, 24)
            await settle(app, pilot)
            entries = app.screen.query_one(Footer).query_children("FooterKey")
            assert all(entry.region.right <= 80 for entry in entries)
            assert [e.description for e in entries][-4:] == ["note", "help", "back", "home"]

        def screen_rows() -> list[str]:
            rows: dict[str, str] = {}
            svg = app.export_screenshot()
            for y, text in re.findall(r'<text[^>]*? y="([\d.]+)"[^>]*>(.*?)</text>', svg):
                rows[y] = rows.get(y, "") + html.unescape(text).replace("\xa0", " ")
            return [rows[y] for y in sorted(rows, key=float)]

        await pilot.press("question_mark")  # still keys, listed under ?
        await settle(app, pilot)
        shown = "\n".join(screen_rows())
        assert "Go to a query by id" in shown and "Search queries" in shown, shown


async def test_q_in_a_dialog_over_agreement_goes_home_as_the_footer_says(tmp_path: Path) -> None:
    # The agreement screen's footer reads "q home" under its dialogs too. The help dialog goes
    # home on q, but a disagreement's detail (Enter) only closed itself: q meant two things.
    key = "enter"
    make_graded_project(tmp_path)
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await open_route(app, pilot, "A", 0)
        assert type(app.screen).__name__ == "AgreementScreen"
        await pilot.press(key)
        await settle(app, pilot)
        assert [type(s).__name__ for s in app.screen_stack][-2:] == [
            "AgreementScreen",
            "PairDetailScreen",
        ]
        await pilot.press("q")
        await settle(app, pilot)
        assert isinstance(app.screen, HomeScreen) and app.is_running
        # Escape on the dialog is one screen back: the agreement screen.
        await open_route(app, pilot, "A", 0)
        await pilot.press(key)
        await settle(app, pilot)
        await pilot.press("escape")
        await settle(app, pilot)
        assert type(app.screen).__name__ == "AgreementScreen"


# The other screens reachable from home: (key on home, keys from there, the stack above home).
MORE_ROUTES = {
    "history": ("h", [], ["HistoryScreen"]),
    "summary": ("v", ["s"], ["ReportScreen", "ReportSummaryScreen"]),
    "closure from the report": ("v", ["c"], ["ReportScreen", "ClosureScreen"]),
    "report warnings": ("v", ["w"], ["ReportScreen", "HelpScreen"]),
    "top k ids in full": ("v", ["right", "right", "right", "enter", "enter", "i"], None),
    "top k keys": ("v", ["right", "right", "right", "enter", "enter", "question_mark"], None),
    "failure overlap": (
        "v",
        ["o", "enter"],
        ["ReportScreen", "OverlapScreen", "OverlapPairScreen"],
    ),
}
NAMES = {"top k ids in full": "IdsScreen", "top k keys": "HelpScreen"}


@pytest.mark.parametrize("route", list(MORE_ROUTES))
async def test_every_other_screen_from_home_escape_back_q_home(tmp_path: Path, route: str) -> None:
    make_graded_project(tmp_path)
    first, keys, names = MORE_ROUTES[route]
    names = names or ["ReportScreen", "FailuresScreen", "TopKScreen", NAMES[route]]
    app = GoldsetApp(HomeScreen)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        for leave in ("escape", "q"):
            await open_route(app, pilot, first, 0)
            for key in keys:
                await pilot.press(key)
                await settle(app, pilot)
            assert [type(s).__name__ for s in app.screen_stack[2:]] == names
            if len(names) > 1 or leave == "q":
                assert "q home" in footer_text(app), footer_text(app)
            await pilot.press(leave)
            await settle(app, pilot)
            if leave == "escape":  # one screen back
                assert [type(s).__name__ for s in app.screen_stack[2:]] == names[:-1]
                for _ in names[:-1]:
                    await pilot.press("escape")
                    await settle(app, pilot)
            assert isinstance(app.screen, HomeScreen) and app.is_running


run_async_tests(globals())
