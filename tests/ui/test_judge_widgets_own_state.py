"""The judging screen's drawn state is reactive: setting it redraws what shows it, with no
hand-called refresh (the saved cell, the routine message, how much of a long text is shown,
ctrl+f's word), and the screen's mixins reach the screen only through the protocol that
states what they need (judge_host.py), holding its widgets instead of looking them up. The
document is a widget that owns its reading state: it works in an app of its own, and what the
screen must hear it posts as messages."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
from rich.text import Text
from save_gates import until
from test_judge_support import MemoryWriter, run_async_tests, tiny_pool
from textual.app import App, ComposeResult
from textual.message import Message

import goldset_tui.ui.screens.judge as judge_module
from goldset_tui.config import HIGHLIGHTS, Config
from goldset_tui.judging import JudgingSession
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen
from goldset_tui.ui.widgets.doc_text import next_width
from goldset_tui.ui.widgets.judge_document import DocumentView
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


class _Reader(App[None]):
    """A bare app holding only the document, with a config as ``goldset``'s app has one."""

    def __init__(self, config: Config) -> None:
        super().__init__()
        self.config = config
        self.view = DocumentView()

    def compose(self) -> ComposeResult:
        yield self.view


async def test_the_document_view_keeps_its_reading_state_outside_the_judging_screen() -> None:
    posted: list[Message] = []  # each message once (the hook sees it again as it bubbles up)
    app = _Reader(Config(text_width=88, highlight="words"))

    def heard(message: Message) -> None:
        if not any(message is seen for seen in posted):
            posted.append(message)

    def said() -> list[str]:
        return [m.text for m in posted if isinstance(m, DocumentView.Said)]

    def chosen() -> list[Message]:
        kinds = (DocumentView.WidthChosen, DocumentView.HighlightChosen)
        return [m for m in posted if isinstance(m, kinds)]

    async with app.run_test(size=(80, 24), message_hook=heard) as pilot:
        view = app.view
        # Unset here, the width and highlighting are the config's, read at every draw.
        view.apply_width()
        assert view.reading_width == 88 and view.text_view.styles.max_width.value == 88
        assert view.highlight_mode == "words"
        app.config = Config(text_width=120)
        assert view.reading_width == 120 and view.highlight_mode == HIGHLIGHTS[0]

        long_text = "word " * TEXT_PAGE
        view.show(("q1", "d1"), long_text, "word")
        assert view.shown == ("q1", "d1")
        shown = view.text_view.content
        assert isinstance(shown, Text) and f"showing the first {TEXT_PAGE:,} of" in shown.plain
        view.show_more()  # no screen: the widget's own var, its own redraw
        assert view.text_limit == 2 * TEXT_PAGE
        shown = view.text_view.content
        assert isinstance(shown, Text) and f"showing the first {2 * TEXT_PAGE:,} of" in shown.plain

        view.cycle_width()
        view.cycle_highlight()
        await until(pilot, lambda: len(chosen()) >= 2)
        width, highlight = chosen()
        assert isinstance(width, DocumentView.WidthChosen)
        assert isinstance(highlight, DocumentView.HighlightChosen)
        assert width.width == next_width(120) == 0 == view.width_choice  # 0: the whole width
        assert view.text_view.styles.max_width is None
        assert highlight.mode == HIGHLIGHTS[1] == view.highlight_mode

        view.show(("q1", "d2"), "A short text.", "word")  # another text: from its first page
        assert view.text_limit == TEXT_PAGE
        view.show_more()
        view.find_next("short")
        view.find_next("absent")
        await until(pilot, lambda: len(said()) >= 3)
        assert said() == [
            "The whole text is shown (13 characters): m is for longer ones.",
            "short: match 1 of 1 (ctrl+f Enter: the next)",
            "Not in this text: absent",
        ]
        assert view.find_word == "absent"


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
