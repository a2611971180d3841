"""The flag (f) and the skip with a reason (s) on the judging screen: each acts on the candidate on
screen only, is saved in the journal before the screen says so, and is readable at 80 columns;
flagged pairs reach the adjudication screen beside the disagreements."""

from __future__ import annotations

import json
from pathlib import Path

from save_gates import until
from test_judge_support import MemoryWriter, run_async_tests, tiny_pool
from textual.widgets import Static

from goldset_tui.adjudication.consensus import UMA, flagged_pairs
from goldset_tui.adjudication.decisions import AdjudicationWriter
from goldset_tui.agreement.example import build_example_store
from goldset_tui.agreement.sources import from_store
from goldset_tui.commands.judge import make_screen, prepare
from goldset_tui.judging import JudgingSession
from goldset_tui.store import Project
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.adjudicate import AdjudicateScreen
from goldset_tui.ui.screens.help import HelpScreen
from goldset_tui.ui.screens.judge import JudgeScreen
from goldset_tui.ui.screens.prompts import TextPrompt

SAMPLE_POOL = Path(__file__).resolve().parents[2] / "sample_data" / "pool.jsonl"


def text(app: GoldsetApp, widget_id: str) -> str:
    return str(app.screen.query_one(f"#{widget_id}", Static).content)


def journal_kinds(store: Path, labeller: str = "ana") -> list[tuple[str, str, str | None]]:
    path = store / "journal" / f"{labeller}.jsonl"
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return [(r["kind"], r["doc_id"], r["note"]) for r in rows]


async def test_f_flags_the_candidate_on_screen_durably_and_f_again_unflags(tmp_path: Path) -> None:
    store = tmp_path / "store"
    screen = make_screen(prepare(SAMPLE_POOL, "ana", store=store))
    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, HelpScreen) and screen.ready_for_keys)
        await pilot.press("escape")  # the first sitting's guidelines
        await until(pilot, lambda: app.screen is screen)
        s = screen.session
        assert s is not None
        shown = s.current.doc_id
        await pilot.press("f")
        await pilot.pause()
        assert journal_kinds(store) == [("flag", shown, "unsure")]  # on disk when it says so
        assert "flagged #1" in text(app, "saved")
        assert "\u2691 unsure" in text(app, "candidate")  # readable at 80 columns
        await pilot.press("2")  # a flag keeps grading as it was
        await pilot.press("k", "f")
        await pilot.pause()
        assert journal_kinds(store)[-1] == ("flag", shown, "")
        assert "\u2691" not in text(app, "candidate")
    screen.flush()
    assert flagged_pairs(Project.open(store)).height == 0


async def test_s_asks_why_records_the_skip_and_moves_on_escape_skips_nothing(
    tmp_path: Path,
) -> None:
    store = tmp_path / "store"
    screen = make_screen(prepare(SAMPLE_POOL, "ana", store=store))
    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, HelpScreen) and screen.ready_for_keys)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)
        s = screen.session
        assert s is not None
        first = s.current.doc_id
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt))
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)
        assert s.current.doc_id == first and journal_kinds(store) == []
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt))
        await pilot.press(*"page is empty", "enter")
        await until(pilot, lambda: app.screen is screen and s.current.doc_id != first)
        assert journal_kinds(store) == [("skip", first, "page is empty")]
        assert s.judged_count == 0  # a skip is no grade
        await pilot.press("k")
        await pilot.pause()
        assert "skipped: page is empty" in text(app, "candidate")
        await pilot.press("2", "k")  # graded after all: the grade counts
        await until(pilot, lambda: s.current.doc_id == first)
        assert "skipped" not in text(app, "candidate")
        await pilot.press("s")  # a graded one is not skipped: said, no dialog
        await pilot.pause()
        assert app.screen is screen and "graded" in text(app, "status")
    screen.flush()


async def test_f_and_s_over_the_guidelines_flag_and_skip_nothing() -> None:
    w = MemoryWriter()
    w.flags: list[tuple[str, str, str]] = []  # type: ignore[misc]
    w.flag = lambda q, d, reason: w.flags.append((q, d, reason))  # type: ignore[attr-defined]
    s = JudgingSession(tiny_pool(), "alice", writer=w)
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=True))
    async with app.run_test(size=(100, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, HelpScreen) and s.current is not None)
        await until(pilot, lambda: app.screen_stack[1].ready_for_keys)
        await pilot.press("f")  # the candidate under the guidelines was not in view
        await until(pilot, lambda: isinstance(app.screen, JudgeScreen))
        assert w.flags == [] and s.current_flag is None
        assert "nothing flagged" in text(app, "status")
        await pilot.press("f")  # now it is in view
        await pilot.pause()
        assert w.flags == [("q1", s.current.doc_id, "unsure")]


async def test_flagged_pairs_come_after_the_disagreements_on_the_adjudication_screen(
    tmp_path: Path,
) -> None:
    store = build_example_store(tmp_path / "demo")
    with Project.open(store).writer("ann") as w:
        w.flag("q2", "account/sso", "is the old page still right?")
    project = Project.open(store)
    flagged = {(q, d): f for q, d, f in flagged_pairs(project).rows()}
    writer = AdjudicationWriter(store, "dee", UMA)
    app = GoldsetApp(
        lambda: AdjudicateScreen(from_store(store), writer, store=store, rule=UMA, flagged=flagged)
    )
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, AdjudicateScreen)
            assert screen.pairs[-1] == ("q2", "account/sso") and len(screen.pairs) == 3
            await pilot.press("j", "j")
            await pilot.pause()
            status = str(screen.query_one("#adjudicate-status", Static).content)
            assert "2 disagreements, 1 flagged" in status
            assert "ann: is the old page still right?" in status
    finally:
        writer.close()


async def test_help_says_where_the_judgments_are_kept(tmp_path: Path) -> None:
    store = tmp_path / "my store"
    screen = make_screen(prepare(SAMPLE_POOL, "ana", store=store))
    app = GoldsetApp(lambda: screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, HelpScreen) and screen.ready_for_keys)
        said = str(app.screen.query_one("#help-guidelines", Static).content)
        assert said.startswith(f"Your judgments are kept in {store}")
    screen.flush()


async def test_flag_and_note_are_readable_at_80_columns_after_a_long_title() -> None:
    # After a long title and the near-duplicate hint, the flag and the note were past the
    # candidate line's last visible row at 80 columns.
    import polars as pl

    same = "Rotate an API key: create a second key, deploy it, then revoke the first one for good."
    rows = [
        {
            "query_id": "q1",
            "query": "rotate api key",
            "doc_id": f"docs/security/credentials/api-keys/rotation-{i}",
            "title": "Rotating API keys without downtime: a step-by-step guide for operators",
            "text": same,
        }
        for i in range(3)
    ]
    note = "the second half of the page is about signing keys, which the query does not ask for"
    s = JudgingSession(
        pl.DataFrame(rows), "ana", writer=MemoryWriter(), notes={("q1", rows[0]["doc_id"]): note}
    )
    s.move(-s.pos)  # the candidate with the note
    here = s.current.doc_id
    s._notes[("q1", here)] = note
    s._flags[("q1", here)] = "unsure"
    app = GoldsetApp(lambda: JudgeScreen(s, show_guidelines=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        widget = app.screen.query_one("#candidate", Static)
        visible = "".join(widget.render_line(y).text for y in range(widget.content_region.height))
        assert "\u2691 unsure" in visible, visible
        assert "\u270e the second half of the page is about signing keys" in visible, visible
        assert "d grades them alike" in visible  # the near-duplicate hint is still whole


run_async_tests(globals())
