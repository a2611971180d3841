"""Snapshots, at 80x24 and 120x40, of the screens and dialogs no other snapshot file shows (so that
snapshots at 80x24 and 120x40 cover every screen): the empty home screen and its Enter, its keys
(?), the "judge as" prompt, the judging screen's go-to and note prompts and its help with the
store's warnings on open, the agreement screen's position-bias dialog, the report's warnings and
full-ids dialogs, judging the report's missing pairs, and the spot-check help.

Every screen reachable from home or opened by a command, and where its snapshots are: home
(test_home_snapshots, here empty and its keys), judge-as prompt (here), judging
(test_judge_snapshots, test_judge_text_snapshots; its help, search, go-to and note prompts),
agreement, its pair detail (test_agreement_snapshots) and position bias (here), system ranking
(test_system_ranking_snapshots), report, failing queries, top k, summary, closure
(test_report_snapshots; warnings, full ids and judging from the report here), history and its
drill-down (test_history_snapshots), the drift re-check (test_drift_snapshots), adjudication
(test_agreement_snapshots), spot-check (test_spotcheck_snapshots; its help here).

Regenerate with `pytest tests/snapshots/test_more_screen_snapshots.py --snapshot-update` and look at
the SVGs before committing them.
"""

from __future__ import annotations

import importlib.util
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest
from test_agreement_snapshots import agreement_app, computed
from test_home_snapshots import ROWS
from test_judge_snapshots import Ticks, pool
from test_report_snapshots import TO_FAILURES
from test_report_snapshots import _app as report_app
from test_spotcheck_snapshots import make_app as spotcheck_app
from textual.widgets import Input

from goldset_tui.agreement.example import build_example_store
from goldset_tui.agreement.sources import from_store
from goldset_tui.judging import JudgingSession
from goldset_tui.store.project import Project
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens import home
from goldset_tui.ui.screens.judge import JudgeScreen
from goldset_tui.ui.screens.report import ReportScreen, ReviewContext
from goldset_tui.ui.text import when
from goldset_tui.ui.widgets.report_judge import judge_hook

SIZES = [(80, 24), (120, 40)]
IDS = [f"{w}x{h}" for w, h in SIZES]
ROOT = Path("/data/goldset/projects")  # named on the home screen: a fixed path, not a tmp one

_spec = importlib.util.spec_from_file_location(
    "report_ui_data", Path(__file__).parents[1] / "unit" / "report" / "ui_data.py"
)
ui_data = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ui_data)


def home_app(monkeypatch, rows: list[home.Row]) -> GoldsetApp:
    monkeypatch.setattr(home, "scan", lambda root=None: list(rows))
    monkeypatch.setattr(when, "local_now", lambda: datetime(2026, 11, 30, 19, 45, tzinfo=UTC))
    return GoldsetApp(lambda: home.HomeScreen(ROOT))


def settled_then(*keys: str):
    """Wait for the home screen's pool-size worker, press ``keys``, wait again: the table's
    cells and focus are final before the picture is taken (a race made one picture flaky)."""

    async def run_before(pilot) -> None:
        await computed(pilot)
        for key in keys:
            await pilot.press(key)
        await computed(pilot)

    return run_before


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_home_empty_after_enter(snap_compare, monkeypatch, size) -> None:
    # No project yet: the hint names the folder, and Enter says what would help.
    app = home_app(monkeypatch, [])
    assert snap_compare(app, terminal_size=size, run_before=settled_then("enter"))


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_home_judge_as_prompt(snap_compare, monkeypatch, size) -> None:
    app = home_app(monkeypatch, ROWS)
    assert snap_compare(app, terminal_size=size, run_before=settled_then("a"))


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_home_keys(snap_compare, monkeypatch, size) -> None:
    app = home_app(monkeypatch, ROWS)
    assert snap_compare(app, terminal_size=size, run_before=settled_then("question_mark"))


def judge_app(warnings: list[str] | None = None) -> GoldsetApp:
    session = JudgingSession(
        pool(), "alice", clock=Ticks(), now=lambda: "2026-01-01T12:00:00.000+00:00"
    )
    return GoldsetApp(
        lambda: JudgeScreen(
            session,
            show_guidelines=False,
            warnings=warnings,
            clock=lambda: datetime(2026, 1, 1, 12, 0, 0),
        )
    )


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_judge_goto_prompt(snap_compare, size) -> None:
    assert snap_compare(judge_app(), terminal_size=size, press=["g", "q", "_"])


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_judge_note_prompt(snap_compare, size) -> None:
    assert snap_compare(judge_app(), terminal_size=size, press=["2", "k", "c"])


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_judge_help_with_the_stores_warnings(snap_compare, size) -> None:
    torn = (
        "the journal ended in a torn line (a crash mid-write): cut and kept in"
        " journal/alice.jsonl.torn; every complete judgment is here"
    )
    assert snap_compare(judge_app([torn]), terminal_size=size, press=["question_mark"])


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_agreement_position_bias(snap_compare, tmp_path, size) -> None:
    data = from_store(build_example_store(tmp_path / "demo"))
    assert snap_compare(agreement_app(data), terminal_size=size, run_before=computed, press=["b"])


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_report_warnings(snap_compare, size) -> None:
    assert snap_compare(report_app(), terminal_size=size, press=["w"])


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_report_full_ids(snap_compare, size) -> None:
    assert snap_compare(report_app(), terminal_size=size, press=[*TO_FAILURES, "enter", "i"])


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_report_judging_the_missing_pairs(snap_compare, tmp_path, size) -> None:
    pool_file = tmp_path / "pool.csv"
    pool_file.write_text("query_id,query,doc_id,text\nq01,x,a,b\n")
    project = Project.create(tmp_path / "store", pool_path=pool_file, pool_sha256="0" * 64)
    docs = ui_data.make_report().topk.get_column("doc_id").unique().sort()
    corpus = pl.DataFrame({"doc_id": docs, "text": [f"text of {d}" for d in docs], "title": docs})
    topics = ui_data.make_topics()
    context = ReviewContext(
        ui_data.make_report(),
        topics=topics,
        judge=judge_hook(project, "ana", topics, corpus, tmp_path / "pairs.csv"),
    )
    app = GoldsetApp(lambda: ReportScreen(context))
    assert snap_compare(app, terminal_size=size, press=[*TO_FAILURES, "enter", "J"])


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_spotcheck_help(snap_compare, tmp_path, size) -> None:
    assert snap_compare(spotcheck_app(tmp_path), terminal_size=size, press=["question_mark"])


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_judge_note_prompt_after_a_blink_tick(snap_compare, size) -> None:
    # The picture a slow machine takes: the cursor's blink timer has fired before it. It must be
    # the same picture as test_judge_note_prompt's (the same snapshot file is compared).
    async def blink_then(pilot) -> None:
        for key in ("2", "k", "c"):
            await pilot.press(key)
        await pilot.pause()
        pilot.app.screen.query_one(Input)._toggle_cursor()

    assert snap_compare(judge_app(), terminal_size=size, run_before=blink_then)
