"""The failing-queries list written with e/E holds each query's full text as shown: literally.

Every other cell of an exported table is the screen's text (ids with their control characters as
placeholders); the query text was put back raw from the topics file, so a query holding an
escape (ESC]0;title BEL) wrote it into failing-*.md and .csv, and `cat failing-lex-all.md`
retitled the terminal."""

from __future__ import annotations

import asyncio
from pathlib import Path

from review_support import file_context, open_failing_list

from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.report import ReportScreen

HOSTILE = "question g1 \x1b]0;pwned\x07 \x1b[2J"


def test_exported_failing_list_shows_query_text_literally(tmp_path: Path) -> None:
    context = file_context(tmp_path, topics={"g1": HOSTILE})
    out = tmp_path / "out"

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await open_failing_list(pilot)
            await pilot.press("e", "E")
            await pilot.pause()

    asyncio.run(drive())
    for name in ("failing-lex-all.md", "failing-lex-all.csv"):
        written = (out / name).read_text(encoding="utf-8")
        assert "\x1b" not in written and "\x07" not in written, (name, written)
        shown = "question g1 \u241b]0;pwned\u2407 \u241b[2J"
        if name.endswith(".md"):  # and Markdown's own characters escaped: "[" is not a link
            shown = shown.replace("]", "\\]").replace("[", "\\[")
        assert shown in written, (name, written)
