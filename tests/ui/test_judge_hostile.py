"""Hostile text in every field is shown literally: no markup parsed, no control sequence let
through, a 1 MB document is laid out a page at a time, right-to-left and wide characters survive."""

from __future__ import annotations

import polars as pl
from test_judge_support import MemoryWriter, run_async_tests

from goldset_tui.judging import JudgingSession
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen
from goldset_tui.ui.widgets.judge_parts import TEXT_PAGE

MARKUP = "[bold]B[/bold] [@click=app.quit]click me[/] [link=https://evil.example]x[/link]"
ESCAPES = "\x1b[2J\x1b]0;pwned\x07\x9b31m\x00\x7f"
RTL = "\u202eevil\u202c \u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627"
WIDE = "\u4e2d\u6587\u6587\u6863 \U0001f511 \uff21\uff30\uff29"


def hostile_pool() -> pl.DataFrame:
    big = ("api key rotation " * 70_000)[:1_048_576]  # 1 MB
    base = {"query_id": "q[b]1", "query": f"rotate api key {MARKUP}", "stratum": ESCAPES}
    return pl.DataFrame(
        [
            {
                **base,
                "doc_id": "d1\x1b[31m",
                "title": MARKUP,
                "text": f"{MARKUP}\n{ESCAPES}\n{RTL}\n{WIDE}",
            },
            {**base, "doc_id": "big", "title": WIDE, "text": big},
            {**base, "doc_id": "d3", "title": RTL, "text": "plain"},
        ]
    )


def screen_text(app: GoldsetApp) -> str:
    return "\n".join(
        str(app.screen.query_one(f"#{w}").render())
        for w in ("query", "candidate", "text", "status", "saved")
    )


async def test_every_field_is_literal_and_controls_are_placeholders() -> None:
    w = MemoryWriter()
    s = JudgingSession(hostile_pool(), "alice", writer=w)
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(120, 40)) as pilot:
        while s.current.doc_id != "d1\x1b[31m":
            await pilot.press("j")
        shown = screen_text(app)
        assert MARKUP in shown  # markup text verbatim, not styled and not a live link
        assert "q[b]1" in shown
        assert (
            "\u241b[2J" in shown and "<U+009B>" in shown and "\u2400" in shown and "\u2421" in shown
        )
        assert "d1\u241b[31m" in shown
        assert "<U+202E>evil" in shown  # the override cannot reorder what follows
        assert "\u05e9\u05dc\u05d5\u05dd" in shown and WIDE in shown
        for ch in ("\x1b", "\x9b", "\x00", "\x07", "\x7f", "\u202e"):
            assert ch not in shown
        # What reaches the terminal: the rendered screen holds no raw control from the data.
        svg = app.export_screenshot()
        assert "\x1b" not in svg and "\x07" not in svg and "\x9b" not in svg
        # Clicking where the [@click] text is must not quit: it is not a link.
        await pilot.click("#text", offset=(3, 0))
        await pilot.pause()
        assert app.is_running
        await pilot.press("c", *"[@click=app.quit]", "enter")
        assert w.notes[-1][2] == "[@click=app.quit]"
        assert app.is_running


async def test_megabyte_document_is_laid_out_one_page_at_a_time() -> None:
    # What keeps keys fast on a 1 MB text is that only its first page is laid out; the seconds
    # themselves are measured in bench/big_documents.py, never asserted here.
    s = JudgingSession(hostile_pool(), "alice", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(80, 24)) as pilot:
        while s.current.doc_id != "big":
            await pilot.press("j")
        await pilot.pause()
        shown = str(app.screen.query_one("#text").render())
        assert "of 1,048,576 characters" in shown
        assert len(shown) < TEXT_PAGE + 200
        await pilot.press("j")
        await pilot.pause()
        await pilot.press("k")
        await pilot.pause()
        assert s.current.doc_id == "big"
        await pilot.press("2")
        assert s.overall_progress()[0] == 1


run_async_tests(globals())
