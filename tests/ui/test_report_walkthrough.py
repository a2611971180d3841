"""docs/report.md's "Review a failure in ten keys", run: its command's arguments on the sample
data, each key of its table pressed in turn, and after each the text the table says the screen
shows (between the backticks of the third column) looked for on the screen."""

from __future__ import annotations

import argparse
import asyncio
import re
import shlex
from pathlib import Path

from textual.widgets import Static

from goldset_tui.commands.review import add_arguments, build_context
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.report import ReportScreen

ROOT = Path(__file__).parents[2]
TITLE = "### Review a failure in ten keys"


def walkthrough() -> tuple[list[str], list[tuple[str, str]]]:
    """(the command's arguments, [(key, what the screen says)]) from docs/report.md."""
    text = (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
    part = text[text.index(TITLE) :]
    part = part[: part.index("\n## ")] if "\n## " in part else part
    command = re.search(r"\n    goldset review (.*?)\n\n", part, re.S)
    assert command is not None
    argv = shlex.split(command.group(1).replace("\\\n", " "))
    rows = re.findall(r"^\| \d+ \| `([^`]+)` \| `([^`]+)`", part, re.M)
    return argv, rows


def shown(app: GoldsetApp) -> str:
    """Every text on the screen (unwrapped) and every notice."""
    parts = [str(w.render()) for w in app.screen.query(Static)]
    parts += [str(n.message) for n in app._notifications]
    return "\n".join(parts)


def test_the_ten_keys_of_the_walkthrough_do_what_the_page_says(tmp_path, monkeypatch) -> None:
    argv, rows = walkthrough()
    assert len(rows) == 10
    out = tmp_path / "review-out"
    argv[argv.index("-o") + 1] = str(out)
    monkeypatch.chdir(ROOT)  # the page's paths are the repository's sample_data/
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    context = build_context(parser.parse_args(argv))

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            for i, (key, says) in enumerate(rows, start=1):
                await pilot.press(key)
                await pilot.pause()
                assert says in shown(app), (i, key, says)

    asyncio.run(drive())
    written = (out / "topk-q38.md").read_text()
    assert written.startswith("| rank | bm25 | minilm | rrf |")
    # Cells are data, escaped for Markdown: "[0] ..." renders as written, never as a link.
    assert "| 1 | \\[0\\] unittest#TextTestRunner |" in written
