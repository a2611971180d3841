"""Notifications that carry a user's path or an OS error show it literally: a ``[bold]`` in a
folder name is text, not markup (a toast parses markup unless told not to)."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

from textual.widgets._toast import Toast

from goldset_tui.adjudication.consensus import UMA
from goldset_tui.adjudication.decisions import AdjudicationWriter
from goldset_tui.agreement.example import build_example_store
from goldset_tui.agreement.sources import from_store
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.adjudicate import AdjudicateScreen
from goldset_tui.ui.screens.report import ReportScreen, ReviewContext
from goldset_tui.ui.widgets.report_judge import judge_hook

_spec = importlib.util.spec_from_file_location(
    "report_ui_data", Path(__file__).parents[1] / "unit" / "report" / "ui_data.py"
)
ui_data = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ui_data)

HOSTILE = "[bold]runs [@click=app.quit]x"


def shown(app) -> list[str]:
    """Each notification's text as its toast renders it."""
    return [Toast(n).render().plain for n in app._notifications]


def test_pairs_file_notice_shows_its_path_literally(tmp_path) -> None:
    folder = tmp_path / HOSTILE
    folder.mkdir()
    out = folder / "pairs.csv"
    context = ReviewContext(ui_data.make_report(), judge=judge_hook(None, None, None, None, out))
    texts: list[str] = []

    async def drive() -> None:
        app = GoldsetApp(lambda: ReportScreen(context))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("right", "right", "down", "down", "enter", "enter", "J")
            await pilot.pause()
            texts.extend(shown(app))
            assert app.is_running

    asyncio.run(drive())
    assert any(str(out) in t for t in texts), texts


def test_adjudication_save_error_shows_literally(tmp_path, monkeypatch) -> None:
    store = build_example_store(tmp_path / "demo")
    bad = str(tmp_path / HOSTILE / "journal.jsonl")

    def refuse(self, *args) -> None:
        raise OSError(28, "No space left on device", bad)

    monkeypatch.setattr(AdjudicationWriter, "decide", refuse)
    texts: list[str] = []

    async def drive() -> None:
        writer = AdjudicationWriter(store, "dee", UMA)
        try:
            app = GoldsetApp(
                lambda: AdjudicateScreen(from_store(store), writer, store=store, rule=UMA)
            )
            async with app.run_test(size=(100, 30)) as pilot:
                await pilot.pause()
                await pilot.press("1")
                await pilot.pause()
                texts.extend(shown(app))
                assert app.is_running
        finally:
            writer.close()

    asyncio.run(drive())
    assert any("not saved" in t and bad in t for t in texts), texts


def test_adjudication_saved_line_shows_control_characters_as_placeholders(
    tmp_path, monkeypatch
) -> None:
    import dataclasses

    import polars as pl
    from textual.widgets import Static

    store = build_example_store(tmp_path / "demo")
    data = from_store(store)
    hostile = pl.col("doc_id") + "\x1b[2J"
    data = dataclasses.replace(
        data,
        ratings=data.ratings.with_columns(hostile),
        pool=data.pool.with_columns(hostile) if data.pool is not None else None,
    )
    monkeypatch.setattr(AdjudicationWriter, "decide", lambda self, *args: None)
    lines: list[str] = []

    async def drive() -> None:
        writer = AdjudicationWriter(store, "dee", UMA)
        try:
            app = GoldsetApp(lambda: AdjudicateScreen(data, writer, store=store, rule=UMA))
            async with app.run_test(size=(100, 30)) as pilot:
                await pilot.pause()
                await pilot.press("1")
                await pilot.pause()
                lines.append(app.screen.query_one("#adjudicate-decision", Static).content.plain)
        finally:
            writer.close()

    asyncio.run(drive())
    assert "saved" in lines[0] and "[2J" in lines[0], lines
    assert "\x1b" not in lines[0], lines
