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


def test_the_export_notices_name_the_folder_literally(tmp_path: Path) -> None:
    """The notices after e name the folder written to (or that could not be written): a folder
    named with an escape and markup shows as text, never obeyed by the labeller's terminal."""
    context = file_context(tmp_path)
    said: list[str] = []

    async def drive(out: Path) -> None:
        context.out_dir = str(out)
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await open_failing_list(pilot)
            await pilot.press("e")
            await pilot.pause()
            said.extend(str(n.message) for n in app._notifications)

    written = tmp_path / "o\x1b[2J[bold]k"  # (no "[/]": a slash would be a subfolder)
    blocked = tmp_path / "b\x1b[2J[bold]ad"
    blocked.write_text("a file where the folder would be", encoding="utf-8")
    asyncio.run(drive(written))
    asyncio.run(drive(blocked / "inside"))
    assert any("written to" in s and "o␛[2J[bold]k" in s for s in said), said
    assert any("Could not write" in s and "b␛[2J[bold]ad" in s for s in said), said
    assert not any("\x1b" in s for s in said), said
