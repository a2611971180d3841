"""The judging screen's document is laid out and drawn only where it is seen (widgets/doc_lines.py),
and what it draws is what a plain ``Static`` drew: the same rows, the same styles.

Landing on a long candidate used to wrap and draw every row of its first page (and ``m`` all the
pages shown so far) although the screen shows about fifteen; the count of rows drawn is checked
here, not the time (bench/big_documents.py has the milliseconds)."""

from __future__ import annotations

import random
import re

import polars as pl
import pytest
from rich._wrap import divide_line
from rich.style import Style as RichStyle
from rich.text import Text
from test_judge_support import MemoryWriter, run_async_tests
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.geometry import Offset
from textual.selection import Selection
from textual.strip import Strip
from textual.widgets import Static

from goldset_tui.judging import JudgingSession
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.safe import literal
from goldset_tui.ui.screens.judge import JudgeScreen
from goldset_tui.ui.widgets import doc_text
from goldset_tui.ui.widgets.doc_lines import LazyText, breaks


def prose(size: int) -> str:
    words = [
        "rotate",
        "the",
        "api",
        "key",
        "then",
        "revoke",
        "the",
        "first",
        "one",
        "when",
        "every",
        "client",
        "moved",
    ]
    paragraphs, n = [], 0
    while sum(map(len, paragraphs)) < size:
        paragraphs.append(" ".join(words[(n + k) % len(words)] for k in range(40 + n % 50)))
        n += 1
    return "\n\n".join(paragraphs)[:size]


HOSTILE = (
    "[bold]not markup[/bold] [@click=app.quit]link?[/] \x1b[31mansi\x1b[0m "
    + "x" * 130  # a word longer than the width: folded
    + "\n\n   indented    spaces   kept\n"
    + "宽字符的文本，每个字占两列，" * 12  # wide characters
    + "\n"
    + "emoji 🙂 and a combining e\u0301 " * 9
    + "\n\n\n"
    + "api key " * 400  # one long line: drawn in pieces
)


def test_row_breaks_are_rich_divide_line_exactly() -> None:
    """The shortcut for ASCII lines against the function Textual wraps with, on lines of words
    and runs of spaces of every length (leading, trailing, longer than the width: folded)."""
    rng = random.Random(26)
    for _ in range(20_000):
        parts = []
        for _ in range(rng.randint(0, 12)):
            parts.append(" " * rng.choice([0, 0, 1, 1, 1, 2, 5]))
            parts.append("x" * rng.choice([1, 2, 3, 5, 8, 13, 21]))
        line = "".join(parts) + " " * rng.choice([0, 0, 1, 3])
        width = rng.randint(1, 25)
        assert breaks(line, width) == divide_line(line, width, fold=True), (line, width)
    for line in HOSTILE.split("\n"):  # wide characters and the rest: divide_line itself
        for width in (7, 40, 81):
            assert breaks(line, width) == divide_line(line, width, fold=True)


def segments(strip: Strip) -> list[tuple[str, object]]:
    return [(seg.text, seg.style) for seg in strip]


class Pair(App[None]):
    """The same content in a plain Static and in LazyText, side by side, each its own height."""

    CSS = "Horizontal { height: auto; } Static { width: 1fr; height: auto; }"

    def __init__(self, content: Text) -> None:
        super().__init__()
        self.plain, self.lazy = Static(content), LazyText(content)

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield self.plain
            yield self.lazy


@pytest.mark.parametrize("width", [40, 81, 133])
@pytest.mark.parametrize("which", ["prose", "hostile", "clickable"])
async def test_the_rows_are_those_a_static_draws(width: int, which: str) -> None:
    text = prose(6_000) if which != "hostile" else HOSTILE
    body = doc_text.document(text, "rotate api key", find="client")
    assert isinstance(body, Text) and body.spans  # highlighted: styles cross the rows
    if which == "clickable":  # not from literal(): a Style carrying an action, styled as a link
        body.stylize(RichStyle(meta={"@click": "app.bell"}), 100, 400)
    app = Pair(body)
    async with app.run_test(size=(width * 2, 50)) as pilot:
        await pilot.pause()
        plain, lazy = app.plain, app.lazy
        assert plain.size == lazy.size and lazy.size.height > 20
        for y in range(lazy.size.height):
            assert segments(lazy.render_line(y)) == segments(plain.render_line(y)), y
        # what a selection copies is the text itself, as with a Static
        assert str(lazy.content) == str(plain.content)
        # a mouse selection from the middle of one line to the middle of a later one
        unselected = [segments(plain.render_line(y)) for y in range(plain.size.height)]
        for start, end in [(Offset(90, 0), Offset(3, 3)), (Offset(5, 2), Offset(200, 7))]:
            chosen = Selection(start, end)
            app.screen.selections = {plain: chosen, lazy: chosen}
            await pilot.pause()
            for y in range(lazy.size.height):
                assert segments(lazy.render_line(y)) == segments(plain.render_line(y)), y
            shown = [segments(plain.render_line(y)) for y in range(plain.size.height)]
            assert shown != unselected  # the selection is drawn


async def test_a_new_text_and_a_new_width_are_laid_out_again() -> None:
    app = Pair(literal("short"))
    async with app.run_test(size=(80, 50)) as pilot:
        await pilot.pause()
        for content in (literal(prose(3_000)), literal("two\nlines"), literal(HOSTILE)):
            app.plain.update(content)
            app.lazy.put(content)
            await pilot.pause()
            assert app.lazy.size == app.plain.size
            rows = range(app.lazy.size.height)
            assert [app.lazy.render_line(y).text for y in rows] == [
                app.plain.render_line(y).text for y in rows
            ]
        await pilot.resize_terminal(120, 50)
        await pilot.pause()
        assert app.lazy.size == app.plain.size
        rows = range(app.lazy.size.height)
        assert [app.lazy.render_line(y).text for y in rows] == [
            app.plain.render_line(y).text for y in rows
        ]


def judge_app(text: str) -> tuple[GoldsetApp, JudgingSession]:
    base = {"query_id": "q1", "query": "rotate api key"}
    pool = pl.DataFrame(
        [
            {**base, "doc_id": "short", "title": "T", "text": "plain"},
            {**base, "doc_id": "long", "title": "T", "text": text},
        ]
    )
    session = JudgingSession(pool, "ana", writer=MemoryWriter())
    return GoldsetApp(lambda: JudgeScreen(session, show_guidelines=False)), session


@pytest.mark.parametrize("kind", ["paragraphs", "one line"])
async def test_landing_on_a_long_text_and_m_draw_only_the_rows_on_screen(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = prose(120_000) if kind == "paragraphs" else "api key rotation " * 7_000
    drawn: list[int] = []
    real = Content.render_strips

    def counting(self: Content, *args: object, **kwargs: object) -> list[Strip]:
        strips = real(self, *args, **kwargs)  # type: ignore[arg-type]
        drawn.append(len(strips))
        return strips

    app, session = judge_app(text)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        if session.current.doc_id == "long":
            await pilot.press("k" if session.pos else "j")
            await pilot.pause()
        monkeypatch.setattr(Content, "render_strips", counting)
        await pilot.press("j" if session.pos == 0 else "k")
        await pilot.pause()
        assert session.current.doc_id == "long"
        view = pilot.app.screen.query_one("#text")
        assert view.size.height > 250  # the whole first page is laid out: it scrolls
        landing, drawn[:] = sum(drawn), []
        await pilot.press("m")
        await pilot.pause()
        assert view.size.height > 500  # two pages now
        more = sum(drawn)
    # The screen shows 15 rows of text at 80x24; a source line or a piece of a long one (16
    # rows) is drawn whole, and the screen's other lines are short. A Static drew the whole page,
    # over 250 rows, and after m both pages.
    assert landing < 150 and more < 150, (landing, more)


@pytest.mark.parametrize("kind", ["paragraphs", "one line"])
async def test_a_text_that_brings_the_scrollbar_is_drawn_at_one_width(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Landing on a text taller than the screen from a short one: the scrollbar appears. The text
    is laid out and drawn beside it at once, not first at the whole width for a frame and then
    again (a page of highlighted words cost its drawing twice), and leaving it for a short text
    draws that one at the whole width at once too."""
    text = prose(120_000) if kind == "paragraphs" else "api key rotation " * 7_000
    widths: list[int] = []
    real = LazyText._draw

    def drawing(self: LazyText, unit: object, width: int, selection: object) -> list[Strip]:
        widths.append(width)
        return real(self, unit, width, selection)  # type: ignore[arg-type]

    app, session = judge_app(text)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        if session.current.doc_id == "long":
            await pilot.press("k" if session.pos else "j")
            await pilot.pause()
        monkeypatch.setattr(LazyText, "_draw", drawing)
        doc = pilot.app.screen.query_one("#doc")
        await pilot.press("j" if session.pos == 0 else "k")
        await pilot.pause()
        assert session.current.doc_id == "long" and doc.show_vertical_scrollbar
        onto, widths[:] = set(widths), []
        await pilot.press("k" if session.pos else "j")
        await pilot.pause()
        assert session.current.doc_id == "short" and not doc.show_vertical_scrollbar
        off = set(widths)
    assert onto == {76} and off == {78}, (onto, off)


async def test_scrolling_to_the_end_shows_the_last_words_and_the_more_line() -> None:
    text = prose(120_000)
    app, session = judge_app(text)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        if session.current.doc_id != "long":
            await pilot.press("k" if session.pos else "j")
            await pilot.pause()
        await pilot.press("end")
        await pilot.pause()
        view = pilot.app.screen.query_one("#text")
        doc = pilot.app.screen.query_one("#doc")
        top = round(doc.scroll_y)
        seen = " ".join(view.render_line(top + y).text.strip() for y in range(doc.size.height))
        assert "press m for more" in seen
        last_words = re.sub(r"\s+", " ", text[:20_000]).split()[-3:]
        assert " ".join(last_words) in re.sub(r"\s+", " ", seen)


run_async_tests(globals())
