"""Reading keys on the judging screen: Home/End, a line at a time, find in the document, go to a
candidate by number, highlighting switched with t and remembered; and a key with nothing to do
says so (m on a text shown whole, pgup at the top) instead of doing nothing silently."""

from __future__ import annotations

import tomllib

import polars as pl
from save_gates import until
from test_judge_support import MemoryWriter, run_async_tests
from textual.containers import VerticalScroll
from textual.widgets import Static

from goldset_tui import locations
from goldset_tui.config import load_config
from goldset_tui.judging import JudgingSession
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen
from goldset_tui.ui.screens.prompts import TextPrompt

LONG = "\n\n".join(f"Paragraph {i}: the proxy timeout is set here. " * 3 for i in range(60))
LONG += "\n\nThe last paragraph names the rotation schedule."


def pool() -> pl.DataFrame:
    texts = [LONG, "A short text about keys.", "Another one.", "And a fourth."]
    return pl.DataFrame(
        {
            "query_id": ["q1"] * 4,
            "query": ["rotate api key"] * 4,
            "doc_id": [f"d{i}" for i in range(4)],
            "text": texts,
        }
    )


def status(app: GoldsetApp) -> str:
    return str(app.screen.query_one("#status", Static).content)


def make() -> tuple[JudgingSession, GoldsetApp]:
    s = JudgingSession(pool(), "ana", writer=MemoryWriter())
    return s, GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False), config=load_config())


async def go_to_text(pilot, s: JudgingSession, doc_id: str) -> None:
    while s.current.doc_id != doc_id:
        await pilot.press("j")


async def test_home_end_and_line_scroll_and_feedback_at_the_edges() -> None:
    s, app = make()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await go_to_text(pilot, s, "d0")
        doc = app.screen.query_one("#doc", VerticalScroll)
        await pilot.press("pageup")  # at the top already
        await pilot.pause()
        assert "At the top of the text." in status(app)
        await pilot.press("end")
        await until(pilot, lambda: doc.scroll_y == doc.max_scroll_y > 0)
        await pilot.press("pagedown")
        await pilot.pause()
        assert "At the end of the text." in status(app)
        await pilot.press("home")
        await until(pilot, lambda: doc.scroll_y == 0)
        await pilot.press("shift+down")
        await until(pilot, lambda: doc.scroll_y == 1)
        await pilot.press("ctrl+y")
        await until(pilot, lambda: doc.scroll_y == 0)


async def test_m_on_a_short_text_says_it_is_shown_whole() -> None:
    s, app = make()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await go_to_text(pilot, s, "d1")
        await pilot.press("m")
        await pilot.pause()
        assert "The whole text is shown (24 characters)" in status(app)


async def test_find_in_the_document_scrolls_to_the_match_and_marks_it() -> None:
    s, app = make()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await go_to_text(pilot, s, "d0")
        doc = app.screen.query_one("#doc", VerticalScroll)
        await pilot.press("ctrl+f")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt))
        await pilot.press(*"schedule", "enter")
        await until(pilot, lambda: "schedule: match 1 of 1" in status(app))
        await until(pilot, lambda: doc.scroll_y > doc.max_scroll_y // 2)  # brought into view
        shown = app.screen.query_one("#text", Static).content
        marked = [shown.plain[x.start : x.end] for x in shown.spans if "yellow" in str(x.style)]
        assert marked == ["schedule"]
        await pilot.press("ctrl+f")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt))
        await pilot.press("ctrl+u", *"nowhere", "enter")
        await until(pilot, lambda: "Not in this text: nowhere" in status(app))


async def test_hash_goes_to_a_candidate_by_number() -> None:
    s, app = make()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("number_sign")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt))
        await pilot.press("3", "enter")  # in the dialog a digit is text, not a grade
        await until(pilot, lambda: s.pos == 2)
        assert s.judged_count == 0
        await pilot.press("number_sign")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt))
        await pilot.press("9", "enter")
        await until(pilot, lambda: "No candidate 9 here: 1 to 4" in status(app))
        assert s.pos == 2


async def test_t_switches_highlighting_and_remembers_it() -> None:
    config = locations.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("# mine\n[ui]\ntext_width = 88\n")

    def lit(app: GoldsetApp) -> list[str]:
        shown = app.screen.query_one("#text", Static).content
        return [shown.plain[x.start : x.end] for x in shown.spans if "reverse" in str(x.style)]

    s, app = make()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await go_to_text(pilot, s, "d1")
        assert lit(app) == ["keys"]  # "key" in the query: its plural too
        await pilot.press("t")
        await until(pilot, lambda: lit(app) == [])  # whole words only: "keys" is not "key"
        assert "Highlighting: query terms, whole words only (remembered" in status(app)
        await pilot.press("t")
        await pilot.pause()
        assert lit(app) == []
    assert tomllib.loads(config.read_text())["ui"] == {"text_width": 88, "highlight": "off"}
    s, app = make()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await go_to_text(pilot, s, "d1")
        assert lit(app) == []  # the next session opens as it was left


async def test_moving_past_either_end_says_so() -> None:
    s, app = make()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        while s.pos > 0:
            await pilot.press("k")
        await pilot.press("k")
        await pilot.pause()
        assert "The first candidate of this query" in status(app)
        await pilot.press("p")
        await pilot.pause()
        assert "The first query of the pool." in status(app)


run_async_tests(globals())
