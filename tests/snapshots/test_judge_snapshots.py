"""Snapshots of the judging screen at 80x24 and 120x40, dark and light, blind and revealed.

Regenerate with `pytest tests/snapshots/test_judge_snapshots.py --snapshot-update` and look at the
SVGs before committing them. Pace and clocks are frozen (fake clocks), so the pictures are stable.
"""

from __future__ import annotations

from datetime import datetime

import polars as pl
import pytest

from goldset_tui.judging import JudgingSession
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen

SIZES = [(80, 24), (120, 40)]
QUERY = "how do i rotate an api key"
DOCS = [
    (
        "api-keys/rotation",
        "Rotating API keys",
        "To rotate an API key, create a second key, deploy it, then revoke the first. "
        "Both keys are valid during the overlap, so clients never see an error.\n\n"
        "Keys older than 90 days are flagged.",
    ),
    (
        "api-keys/rotation-mirror",
        "Rotating API keys (mirror)",
        "To rotate an API key, create a second key, deploy it, then revoke the first. "
        "Both keys are valid during the overlap, so clients never see an error.\n\n"
        "Keys older than 90 days are flagged.",
    ),
    (
        "security/policy",
        "Credential policy",
        "Credentials must be rotated every 90 days; rotation needs approval [@click=app.quit].",
    ),
    (
        "sdk/auth",
        "SDK: refreshing keys",
        "client.keys.rotate(key_id) returns the new key.\x1b[31m Old keys expire after one hour.",
    ),
    (
        "changelog/2024-03",
        "Changelog 2024-03",
        "Fixed a typo in the billing page. \u4e2d\u6587 and \u05e9\u05dc\u05d5\u05dd survive.",
    ),
]


def pool() -> pl.DataFrame:
    rows = []
    for q, query in (("q_0147", QUERY), ("q_0148", "sqlite database is locked")):
        for rank, (doc, title, text) in enumerate(DOCS, start=1):
            rows.append(
                {
                    "query_id": q,
                    "query": query,
                    "doc_id": doc,
                    "title": title,
                    "text": text,
                    "stratum": "howto",
                    "systems": ["bm25", "dense"],
                    "ranks": [rank, 6 - rank],
                }
            )
    return pl.DataFrame(rows)


class Ticks:
    """30 seconds per reading: a steady 2 judgments a minute (docs/background.md#pooling-depth)."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 15.0
        return self.t


def make_app(
    *, reveal: bool = False, theme: str | None = None, show_guidelines: bool = False
) -> GoldsetApp:
    session = JudgingSession(
        pool(), "alice", clock=Ticks(), now=lambda: "2026-01-01T12:00:00.000+00:00"
    )
    app = GoldsetApp(
        lambda: JudgeScreen(
            session,
            reveal=reveal,
            show_guidelines=show_guidelines,
            clock=lambda: datetime(2026, 1, 1, 12, 0, 0),
        )
    )
    if theme:
        app.theme = theme
    return app


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_judge_blind_after_three_grades(snap_compare, size) -> None:
    assert snap_compare(make_app(), terminal_size=size, press=["2", "1", "0"])


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_judge_revealed(snap_compare, size) -> None:
    assert snap_compare(make_app(reveal=True), terminal_size=size, press=["j"])


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_judge_light_theme(snap_compare, size) -> None:
    assert snap_compare(make_app(theme="textual-light"), terminal_size=size, press=["3"])


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_judge_guidelines_on_first_open(snap_compare, size) -> None:
    assert snap_compare(make_app(show_guidelines=True), terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_judge_query_search(snap_compare, size) -> None:
    assert snap_compare(make_app(), terminal_size=size, press=["slash", "s", "q", "l"])


def test_judge_at_60x20_keeps_help_and_quit_in_the_footer(snap_compare) -> None:
    # The narrowest terminal a labeller was seen using (a split tmux pane): the footer gives up
    # entries that are also under ? before it loses "? help" and "q quit".
    assert snap_compare(make_app(), terminal_size=(60, 20), press=["2"])
