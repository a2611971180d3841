"""The failing-queries list written with e/E holds each query's full text as shown: literally.

Every other cell of an exported table is the screen's text (ids with their control characters as
placeholders); the query text was put back raw from the topics file, so a query holding an
escape (ESC]0;title BEL) wrote it into failing-*.md and .csv, and `cat failing-lex-all.md`
retitled the terminal."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.report import ReportScreen
from goldset_tui.ui.widgets.report_drill import FailuresScreen

_spec = importlib.util.spec_from_file_location(
    "planted", Path(__file__).parents[1] / "unit" / "report" / "planted.py"
)
assert _spec is not None and _spec.loader is not None
planted = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(planted)

TO_ALL_LEX = ["right", "right", "down", "down", "enter"]  # lex column, the "all" row
HOSTILE = "question g1 \x1b]0;pwned\x07 \x1b[2J"


def test_exported_failing_list_shows_query_text_literally(tmp_path: Path) -> None:
    paths = planted.write_files(tmp_path)
    topics = paths["topics"].read_text().replace("question g1\n", HOSTILE + "\n")
    paths["topics"].write_text(topics)
    options = ("--strata", str(paths["strata"]), "--topics", str(paths["topics"]))
    options += ("--corpus", str(paths["corpus"]), "-o", str(tmp_path / "out"))
    context = planted.review_context(paths["qrels"], *options, runs=planted.both_runs(paths))
    out = tmp_path / "out"

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press(*TO_ALL_LEX)
            await pilot.pause()
            assert isinstance(app.screen, FailuresScreen)
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
