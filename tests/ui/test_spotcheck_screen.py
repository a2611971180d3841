"""Pilot tests of the spot-check screen: keys, durability before "saved", undo, resume, safe text.

No async test plugin is installed, so each test runs its coroutine with ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import polars as pl
import pytest
from rich.console import Console

from goldset_tui.errors import StoreLockedError
from goldset_tui.sampling.spotcheck import (
    SpotCheckSession,
    check_items,
    journal_path,
    load_answers,
    strata_order,
)
from goldset_tui.store.journal import replay
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.spotcheck import SpotCheckScreen

HOSTILE = "[@click=app.quit]boom[/] \x1b[31mred"

LABELS = pl.DataFrame(
    {
        "query": [
            "err_4021 on webhook delivery",
            "paginaton parameters",
            "which regions are not covered",
            "api key",
            "how do i stop the sync from running twice",
            "sync stripe and salesforce",
            HOSTILE.lower(),
        ],
        "count": [3, 2, 1, 5, 1, 1, 1],
        "stratum": [
            "exact_identifier",
            "misspelled",
            "negation",
            "short_keyword",
            "paraphrase",
            "multi_entity",
            "paraphrase",
        ],
    }
)


def open_session(tmp_path: Path, labeller: str = "ana") -> SpotCheckSession:
    items = check_items(LABELS, None, 0)
    return SpotCheckSession.open(
        items, strata_order(LABELS), journal_path(tmp_path, labeller), labeller
    )


def screen_text(app: GoldsetApp) -> str:
    """Every Static's content as plain text (Rich renders tables and groups for us)."""
    console = Console(width=200, record=True, file=io.StringIO())
    for widget in app.screen.query("Static"):
        console.print(widget.content)
    return console.export_text()


def test_keys_answer_and_every_answer_is_on_disk_when_shown(tmp_path: Path) -> None:
    asyncio.run(_test_keys_answer_and_every_answer_is_on_disk_when_shown(tmp_path))


async def _test_keys_answer_and_every_answer_is_on_disk_when_shown(tmp_path: Path) -> None:
    session = open_session(tmp_path)
    first, second, third = session.queries[:3]
    app = GoldsetApp(lambda: SpotCheckScreen(session, sizes={"paraphrase": 25, "negation": 18}))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        assert "Query 1 of 7" in screen_text(app)
        await pilot.press("y")
        records, _ = replay(session.path)
        assert records[-1]["action"] == "check" and records[-1]["query"] == first
        assert records[-1]["correct"] == records[-1]["assigned"]
        assert "saved (1 of 7)" in screen_text(app)
        await pilot.press("3")  # strata order: exact_identifier, negation, misspelled, ...
        records, _ = replay(session.path)
        assert records[-1]["query"] == second and records[-1]["correct"] == "misspelled"
        await pilot.press("s")
        assert replay(session.path)[0][-1]["action"] == "skip"
        text = screen_text(app)
        assert "Query 4 of 7" in text and "skipped 1" in text
        await pilot.press("u")
        assert replay(session.path)[0][-1]["action"] == "undo"
        text = screen_text(app)
        assert "Query 3 of 7" in text and "undone" in text
        await pilot.press("9")  # only six strata: the key does nothing
        assert len(replay(session.path)[0]) == 4  # check, check, skip, undo: no fifth
    session.close()
    answers, _ = load_answers(session.path)
    assert [a.query for a in answers] == [first, second]
    assert third not in {a.query for a in answers}


def test_agreement_and_verdict_update_as_the_labeller_goes(tmp_path: Path) -> None:
    asyncio.run(_test_agreement_and_verdict_update_as_the_labeller_goes(tmp_path))


async def _test_agreement_and_verdict_update_as_the_labeller_goes(tmp_path: Path) -> None:
    session = open_session(tmp_path)
    app = GoldsetApp(lambda: SpotCheckScreen(session, sizes={"paraphrase": 25}))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        for key in "yyyy":
            await pilot.press(key)
        text = screen_text(app)
        assert "Agreement 4 of 4" in text and "100.0%" in text
        # 4 of 4: the continuity-corrected interval's low end is 39.6% (scipy's "wilsoncc"), so
        # an error up to 60% is still allowed (plain Wilson said 49%).
        assert "agreed on all 4 checked" in text and "up to 60%" in text
    session.close()


def test_resume_starts_where_the_labeller_stopped(tmp_path: Path) -> None:
    asyncio.run(_test_resume_starts_where_the_labeller_stopped(tmp_path))


async def _test_resume_starts_where_the_labeller_stopped(tmp_path: Path) -> None:
    session = open_session(tmp_path)
    app = GoldsetApp(lambda: SpotCheckScreen(session, sizes={}))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("y", "y")
    session.close()
    again = open_session(tmp_path)
    assert again.position() == 2
    app = GoldsetApp(lambda: SpotCheckScreen(again, sizes={}))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "Query 3 of 7" in text and "resumed: 2 answers" in text
    again.close()


def test_a_second_writer_is_refused(tmp_path: Path) -> None:
    session = open_session(tmp_path)
    with pytest.raises(StoreLockedError):
        open_session(tmp_path)
    session.close()
    open_session(tmp_path).close()


def test_hostile_query_is_shown_literally(tmp_path: Path) -> None:
    asyncio.run(_test_hostile_query_is_shown_literally(tmp_path))


async def _test_hostile_query_is_shown_literally(tmp_path: Path) -> None:
    items = pl.DataFrame(
        {"query": [HOSTILE.lower()], "stratum": ["paraphrase"], "spelling": [HOSTILE]}
    )
    session = SpotCheckSession.open(
        items, ["paraphrase", "negation"], journal_path(tmp_path, "ana"), "ana"
    )
    app = GoldsetApp(lambda: SpotCheckScreen(session, sizes={}))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "[@click=app.quit]boom[/]" in text and "\u241b[31mred" in text and "\x1b" not in text
        assert app.is_running
    session.close()


def test_help_lists_the_keys(tmp_path: Path) -> None:
    asyncio.run(_test_help_lists_the_keys(tmp_path))


async def _test_help_lists_the_keys(tmp_path: Path) -> None:
    session = open_session(tmp_path)
    app = GoldsetApp(lambda: SpotCheckScreen(session, sizes={}))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        text = screen_text(app)
        assert "spotcheck.agree" in text and "roughly right" in text and "seed" not in text
    session.close()


def test_the_end_of_the_list_says_so_and_records_nothing_more(tmp_path: Path) -> None:
    asyncio.run(_test_the_end_of_the_list(tmp_path))


async def _test_the_end_of_the_list(tmp_path: Path) -> None:
    session = open_session(tmp_path)
    app = GoldsetApp(lambda: SpotCheckScreen(session, sizes={"paraphrase": 25}))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"yyyyyyy")
        text = screen_text(app)
        assert "All 7 queries answered" in text and "Agreement 7 of 7" in text
        await pilot.press("y", "s", "2")
        assert "nothing left to answer" in screen_text(app)
        await pilot.press("pagedown")  # the numbers scroll; nothing is recorded
    session.close()
    records, _ = replay(session.path)
    assert len(records) == 7


def test_remapped_keys_are_the_keys_shown_and_used(tmp_path: Path) -> None:
    asyncio.run(_test_remapped_keys(tmp_path))


async def _test_remapped_keys(tmp_path: Path) -> None:
    from goldset_tui.config import Config

    session = open_session(tmp_path)
    config = Config(keymap={"spotcheck.agree": "a", "spotcheck.pick_2": "n"})
    app = GoldsetApp(lambda: SpotCheckScreen(session, sizes={}), config=config)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "a agree" in text and "n negation" in text and "y agree" not in text
        await pilot.press("a")
        await pilot.press("n")
        records, _ = replay(session.path)
        assert [r["action"] for r in records] == ["check", "check"]
        assert (
            records[0]["correct"] == records[0]["assigned"] and records[1]["correct"] == "negation"
        )
    session.close()


def test_a_failed_write_names_its_path_literally(tmp_path: Path, monkeypatch) -> None:
    asyncio.run(_test_a_failed_write_names_its_path_literally(tmp_path, monkeypatch))


async def _test_a_failed_write_names_its_path_literally(tmp_path: Path, monkeypatch) -> None:
    """The error of a failed write names the journal's path; a folder holding an escape or markup
    must show as text ("NOT SAVED" through the same literal rendering as the rest), not clear the
    labeller's terminal. (An OSError with a ``filename`` already shows it by repr; one whose
    message holds the path does not.)"""
    session = open_session(tmp_path)
    folder = tmp_path / "x\x1b[2J[bold]y[/]"

    def full_disk() -> None:
        # The store's own errors name the file in their message (no ``filename`` to repr).
        raise OSError(f"could not write {folder}: disk full")

    monkeypatch.setattr(session, "agree", full_disk)
    app = GoldsetApp(lambda: SpotCheckScreen(session, sizes={"paraphrase": 25}))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        shown = screen_text(app)
        assert "NOT SAVED" in shown
        assert "\x1b" not in shown
        assert "x␛[2J[bold]y[/]" in shown
    session.close()
