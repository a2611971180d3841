"""The judging screen reflows a hard-wrapped document to its width, up to the reading width;
``w`` cycles that width and remembers it in the config file; --text-width and --render reach
the screen from the command line; a rendered document's text cannot be clicked into an action."""

from __future__ import annotations

import textwrap
import tomllib
from pathlib import Path

import polars as pl
from test_judge_support import MemoryWriter, run_async_tests
from textual.geometry import Region

from goldset_tui import locations
from goldset_tui.cli import build_parser
from goldset_tui.config import load_config
from goldset_tui.judging import JudgingSession
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen

PROSE = (
    "To rotate an API key, create a second key and deploy it everywhere the first one is used. "
    "Both keys stay valid during the overlap, so no client ever sees an authentication error. "
    "When every client uses the new key, revoke the first one; keys older than ninety days are "
    "flagged in the console and in the weekly security report, which the team reads on Mondays."
)


def pool(text: str = textwrap.fill(PROSE, 72)) -> pl.DataFrame:
    return pl.DataFrame(
        [{"query_id": "q1", "query": "zzz", "doc_id": "d1", "title": "T", "text": text}]
    )


def text_lines(app: GoldsetApp) -> list[str]:
    widget = app.screen.query_one("#text")
    lines = [widget.render_line(y).text.rstrip() for y in range(widget.size.height)]
    return [line for line in lines if line]


def app_for(**kwargs) -> GoldsetApp:
    s = JudgingSession(pool(), "ana", writer=MemoryWriter())
    return GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False, **kwargs))


def configured_app() -> GoldsetApp:
    """A judging app with the user's config file as it is now (as `goldset judge` reads it)."""
    s = JudgingSession(pool(), "ana", writer=MemoryWriter())
    return GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False), config=load_config())


async def test_at_160_columns_a_72_column_document_reflows_to_the_reading_width() -> None:
    async with app_for().run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        lines = text_lines(pilot.app)
        assert " ".join(lines) == PROSE
        longest = max(len(line) for line in lines)
        assert 90 < longest <= 100, lines  # past the 72 it was written at, not past 100
        assert len(lines) <= 5


async def test_at_80_columns_it_uses_the_whole_width() -> None:
    async with app_for().run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lines = text_lines(pilot.app)
        assert " ".join(lines) == PROSE
        assert max(len(line) for line in lines) > 72  # not 72 + a stub line each time


async def test_w_cycles_the_width_and_remembers_it_in_the_config() -> None:
    config = locations.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('# mine\n[ui]\ntheme = "textual-light"\n\n[keymap]\nmore = "m"\n')
    app = configured_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        await pilot.press("w")  # 100 -> 120
        await pilot.pause()
        assert 100 < max(len(line) for line in text_lines(app)) <= 120
        assert "Reading width: 120 columns (remembered" in str(
            app.screen.query_one("#status").render()
        )
        await pilot.press("w")  # -> the whole width
        await pilot.pause()
        assert max(len(line) for line in text_lines(app)) > 120
    written = config.read_text()
    assert written.startswith('# mine\n[ui]\ntheme = "textual-light"\ntext_width = 0\n')
    assert tomllib.loads(written)["keymap"] == {"more": "m"}  # the rest as written
    # The next session opens at the remembered width.
    app = configured_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        assert max(len(line) for line in text_lines(app)) > 120


async def test_text_width_option_overrides_the_config() -> None:
    async with app_for(text_width=72).run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        assert max(len(line) for line in text_lines(pilot.app)) <= 72


def test_the_command_line_takes_render_and_text_width() -> None:
    parser = build_parser()
    args = parser.parse_args(
        ["judge", "p.jsonl", "--labeller", "a", "--render", "rst", "--text-width", "88"]
    )
    assert (args.render, args.text_width) == ("rst", 88)
    args = parser.parse_args(["demo", "--render", "markdown", "--text-width", "0"])
    assert (args.render, args.text_width) == ("markdown", 0)


async def test_a_rendered_link_cannot_be_clicked_into_an_action() -> None:
    text = "A [quit](https://evil.example) link and [@click=app.quit]click here[/] too."
    s = JudgingSession(pool(text), "ana", writer=MemoryWriter())
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False, render="markdown"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        widget = app.screen.query_one("#text")
        line = widget.render_line(0)
        assert "[@click=app.quit]click here[/]" in line.text
        assert "quit <https://evil.example>" in line.text
        for segment in line:
            assert segment.style is None or not (segment.style.link or segment.style.meta)
        region: Region = widget.region
        for x in range(region.x, region.x + len(line.text), 3):
            await pilot.click(offset=(x, region.y))
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, JudgeScreen)


def test_a_bad_reading_width_in_the_config_is_one_line(tmp_path: Path) -> None:
    import pytest

    from goldset_tui.errors import InputError

    path = tmp_path / "config.toml"
    for value in ("5", "true", '"wide"', "-1"):
        path.write_text(f"[ui]\ntext_width = {value}\n")
        with pytest.raises(InputError) as info:
            load_config(path)
        assert info.value.column == "ui.text_width"
    path.write_text('[ui]\nrender = "html"\n')
    with pytest.raises(InputError):
        load_config(path)


run_async_tests(globals())
