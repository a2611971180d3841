"""Helpers for the review screens' Pilot tests (no tests here): the planted set of
tests/unit/report/planted.py as `goldset review` reads it from files, and the keys from the
report to lex's failing-queries list."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.widgets.report_drill import FailuresScreen

_spec = importlib.util.spec_from_file_location(
    "planted", Path(__file__).parents[1] / "unit" / "report" / "planted.py"
)
assert _spec is not None and _spec.loader is not None
planted = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(planted)

TO_ALL_LEX = ["right", "right", "down", "down", "enter"]  # lex column, the "all" row


def file_context(
    tmp_path: Path,
    *,
    corpus: dict[str, str] | None = None,
    topics: dict[str, str] | None = None,
    extra_lex=(),
):
    """`goldset review` on the planted files (qrels with the holes), its texts from --corpus and
    --topics, writing to ``tmp_path / "out"``; ``corpus`` replaces some documents' texts,
    ``topics`` some queries' texts, ``extra_lex`` adds lines to lex's run."""
    paths = planted.write_files(tmp_path)
    if corpus:
        lines = []
        for line in paths["corpus"].read_text().splitlines():
            row = json.loads(line)
            row["text"] = corpus.get(row["_id"], row["text"])
            lines.append(json.dumps(row))
        paths["corpus"].write_text("\n".join(lines) + "\n")
    if topics:
        rows = [line.split("\t", 1) for line in paths["topics"].read_text().splitlines()]
        paths["topics"].write_text("".join(f"{q}\t{topics.get(q, text)}\n" for q, text in rows))
    if extra_lex:
        with paths["lex"].open("a") as fh:
            fh.writelines(extra_lex)
    options = ("--strata", str(paths["strata"]), "--topics", str(paths["topics"]))
    options += ("--corpus", str(paths["corpus"]), "-o", str(tmp_path / "out"))
    return planted.review_context(paths["qrels"], *options, runs=planted.both_runs(paths))


async def open_failing_list(pilot: Pilot) -> FailuresScreen:
    """From the report screen just opened, lex's failing-queries list (the "all" row): the screen
    the keys opened, checked to be that list."""
    await pilot.pause()
    await pilot.press(*TO_ALL_LEX)
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, FailuresScreen), screen
    return screen


def screen_lines(app: GoldsetApp) -> list[str]:
    """The terminal's lines as the screen draws them."""
    strips = app.screen._compositor.render_strips()
    return ["".join(segment.text for segment in strip) for strip in strips]


def text_of(app: GoldsetApp, selector: str) -> str:
    """The text the current screen's ``selector`` Static shows."""
    return str(app.screen.query_one(selector, Static).render())


def table_rows(table: DataTable) -> list[list[str]]:
    """Every row of ``table`` as its cells' text."""
    return [
        [str(table.get_cell_at((r, c))) for c in range(len(table.columns))]
        for r in range(table.row_count)
    ]
