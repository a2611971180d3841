"""The judging screen's drawn state is reactive: setting it redraws what shows it, with no
hand-called refresh (the saved cell, the routine message, how much of a long text is shown,
ctrl+f's word), and the screen's mixins reach the screen only through the protocol that
states what they need (judge_host.py), holding its widgets instead of looking them up."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
from rich.text import Text
from save_gates import until
from test_judge_support import MemoryWriter, run_async_tests, tiny_pool

import goldset_tui.ui.screens.judge as judge_module
from goldset_tui.judging import JudgingSession
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen
from goldset_tui.ui.widgets.judge_parts import TEXT_PAGE
from goldset_tui.ui.widgets.judge_status import StatusBar


def drawn_row(app: GoldsetApp, y: int) -> str:
    strips = app.screen._compositor.render_strips()
    return "".join(segment.text for segment in strips[y])


async def _live_screen(pilot, app: GoldsetApp) -> JudgeScreen:
    screen = app.screen
    assert isinstance(screen, JudgeScreen)
    await until(pilot, screen.keys_live)
    return screen


async def test_setting_the_saved_cell_or_a_message_redraws_the_status_bar() -> None:
    session = JudgingSession(tiny_pool(), "alice", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(session, show_guidelines=False))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _live_screen(pilot, app)
        bar = screen.query_one(StatusBar)
        assert bar is screen.status_bar
        bar.saved = Text("\u2713 saved by hand")  # nothing else is called
        await pilot.pause()
        row = drawn_row(app, bar.region.y)
        assert row.rstrip().endswith("\u2713 saved by hand") and "query 0/4" in row
        bar.message = Text("a routine message")
        await pilot.pause()
        row = drawn_row(app, bar.region.y)
        assert "a routine message" in row and "query 0/4" not in row
        assert row.rstrip().endswith("\u2713 saved by hand")  # the saved cell stays
        bar.message = None
        await pilot.pause()
        assert "query 0/4" in drawn_row(app, bar.region.y)


async def test_the_text_limit_and_the_find_word_redraw_the_text() -> None:
    pool = tiny_pool().with_columns(pl.lit("word " * (TEXT_PAGE // 2)).alias("text"))
    session = JudgingSession(pool, "alice", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(session, show_guidelines=False))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _live_screen(pilot, app)
        shown = screen.doc_view.text_view.content
        assert isinstance(shown, Text) and f"showing the first {TEXT_PAGE:,} of" in shown.plain
        screen.doc_view.text_limit += TEXT_PAGE
        shown = screen.doc_view.text_view.content
        assert isinstance(shown, Text) and f"showing the first {2 * TEXT_PAGE:,} of" in shown.plain
        plain_spans = len(shown.spans)  # no query term in this text: nothing lit
        screen.doc_view.find_word = "word"  # as ctrl+f sets it
        shown = screen.doc_view.text_view.content
        assert isinstance(shown, Text) and len(shown.spans) >= plain_spans + TEXT_PAGE // 5
        # A new candidate starts again from the first page, drawn once.
        await pilot.press("j")
        assert screen.doc_view.text_limit == TEXT_PAGE
        shown = screen.doc_view.text_view.content
        assert isinstance(shown, Text) and f"showing the first {TEXT_PAGE:,} of" in shown.plain


def test_the_judging_modules_hold_their_widgets_and_type_what_they_use() -> None:
    """No looking widgets up, no untyped reach into the screen (see judge_host.py)."""
    here = Path(judge_module.__file__)
    files = [here, *sorted((here.parent.parent / "widgets").glob("judge_*.py"))]
    found = {
        f"{path.name}:{n}": line.strip()
        for path in files
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"query_one\(|type: ignore\[attr-defined\]|: Any = self\b", line)
    }
    assert len(files) >= 10 and found == {}


run_async_tests(globals())
