"""Pilot tests of the adjudication screen: biggest first, durable before "saved", resumable.

No async test plugin is installed: each test runs its coroutine with ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import functools
import json

import pytest
from rich.text import Text
from textual.widgets import Static

from goldset_tui.adjudication.consensus import MEDIAN, UMA, consensus_qrels
from goldset_tui.adjudication.decisions import AdjudicationWriter, journal_path
from goldset_tui.agreement.example import build_example_store
from goldset_tui.agreement.sources import from_store
from goldset_tui.store.project import Project
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.adjudicate import AdjudicateScreen


def synchronously(coro_fn):
    @functools.wraps(coro_fn)
    def wrapper(*args, **kwargs):
        return asyncio.run(coro_fn(*args, **kwargs))

    return wrapper


@pytest.fixture
def store(tmp_path):
    return build_example_store(tmp_path / "demo")


def plain(widget: Static) -> str:
    content = widget.content
    return content.plain if isinstance(content, Text) else str(content)


def journal_grades(store) -> list[tuple[str, int | None]]:
    path = journal_path(store, "dee")
    if not path.exists():
        return []
    return [(r["doc_id"], r["grade"]) for r in map(json.loads, path.read_text().splitlines())]


async def walk(store, keys: list[str], rule: str = UMA, checks=None) -> AdjudicateScreen:
    data = from_store(store)
    writer = AdjudicationWriter(store, "dee", rule)
    app = GoldsetApp(lambda: AdjudicateScreen(data, writer, store=store, rule=rule))
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            screen = app.screen
            for key in keys:
                await pilot.press(key)
                await pilot.pause()
                if checks:
                    checks(screen)
            # Read the texts while the app still runs (its widgets go when it exits).
            screen.shown = {
                "status": plain(screen.query_one("#adjudicate-status", Static)),
                "decision": plain(screen.query_one("#adjudicate-decision", Static)),
            }
            screen.notes = [(str(n.message), n.severity) for n in app._notifications]
            return screen
    finally:
        writer.close()


@synchronously
async def test_the_grades_are_on_screen_at_80x24_above_a_long_document(store) -> None:
    # The grades table came after the document's text: with a real document (the sample data's
    # JSONDecoder.__init__, 20 lines) nobody's grade was on an 80x24 screen, so the adjudicator
    # was asked to decide without seeing what the labellers said.
    import polars as pl

    data = from_store(store)
    long_text = "\n\n".join(f"Paragraph {i}: " + "word " * 60 for i in range(12))
    data.pool = data.pool.with_columns(pl.lit(long_text).alias("text"))
    writer = AdjudicationWriter(store, "dee", UMA)
    app = GoldsetApp(lambda: AdjudicateScreen(data, writer, store=store, rule=UMA))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        shown = "\n".join(
            "".join(segment.text for segment in strip)
            for strip in app.screen._compositor.render_strips()
        )
        assert "grades (spread" in shown
        assert all(name in shown for name in ("ann", "bob", "cy")), shown


@synchronously
async def test_biggest_disagreement_first_and_each_decision_on_disk_when_saved_shows(store) -> None:
    seen: list[tuple[str, list]] = []

    def check(screen: AdjudicateScreen) -> None:
        # Whenever the screen says saved, the journal already holds that decision.
        message = plain(screen.query_one("#adjudicate-decision", Static))
        seen.append((message, journal_grades(store)))

    screen = await walk(store, ["3"], checks=check)
    # ann 3 / bob 0 / cy 1 (spread 3) comes before ann 2 / bob 0 / cy 1 (spread 2).
    message, on_disk = seen[0]
    assert "saved q3 / errors/conn-reset = 3" in message
    assert on_disk == [("errors/conn-reset", 3)]
    assert screen.pairs == [("q3", "errors/conn-reset"), ("q1", "sdk/auth#refreshing-keys")]
    assert screen.index == 1  # moved on to the next undecided pair


@synchronously
async def test_to_the_end_then_consensus_and_resume(store) -> None:
    screen = await walk(store, ["2", "1"])
    assert "All 2 disagreements decided" in screen.shown["decision"]
    got = {(q, d): g for q, d, g in consensus_qrels(Project.open(store)).iter_rows()}
    assert got["q3", "errors/conn-reset"] == 2 and got["q1", "sdk/auth#refreshing-keys"] == 1
    assert len(got) == 12  # nothing pending any more
    # A new session resumes: everything decided, the screen opens on the first pair with its decision.
    again = await walk(store, [])
    assert again.decided_count == 2
    assert "Decision: 2" in again.shown["decision"]


@synchronously
async def test_resume_starts_at_first_undecided_and_withdraw(store) -> None:
    await walk(store, ["3"])
    screen = await walk(store, [])
    assert screen.index == 1  # the first pair is decided: resume on the second
    screen = await walk(store, ["k", "x"])
    assert journal_grades(store)[-1] == ("errors/conn-reset", None)
    assert screen.decided_count == 0


@synchronously
async def test_grade_outside_scale_is_refused_with_a_message(store) -> None:
    screen = await walk(store, ["7"])
    assert journal_grades(store) == []
    assert screen.decided_count == 0
    assert screen.notes == [("7 is not a grade on this scale: press 0-3", "warning")]
    assert "Undecided" in screen.shown["decision"]


@synchronously
async def test_median_rule_has_nothing_open_with_three_labellers(store) -> None:
    screen = await walk(store, [], rule=MEDIAN)
    assert screen.pairs == []
    assert "Nothing to adjudicate" in screen.shown["status"]
