"""Snapshots of how the judging screen shows a document: plain (a 72-column hard-wrapped text
reflowed to the screen, up to the 100-column reading width) and rendered Markdown and
reStructuredText, each with hostile bits that must stay text, at 80x24 and 160x45.

Regenerate with `pytest tests/snapshots/test_judge_text_snapshots.py --snapshot-update` and look
at the SVGs before committing them.
"""

from __future__ import annotations

import textwrap
from datetime import datetime

import polars as pl
import pytest

from goldset_tui.judging import JudgingSession
from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens.judge import JudgeScreen

SIZES = [(80, 24), (160, 45)]
PROSE = (
    "To rotate an API key, create a second key and deploy it everywhere the first one is used. "
    "Both keys stay valid during the overlap, so no client ever sees an authentication error. "
    "When every client uses the new key, revoke the first one; keys older than ninety days are "
    "flagged in the console."
)
PLAIN = (
    textwrap.fill(PROSE, 72)
    + "\n\nExample::\n\n    client.keys.rotate(key_id)   # returns the new key\n\n"
    + "Fields:\nid: the key's id\ncreated: when it was made"
)
MARKDOWN = (
    "# Rotating API keys\n\n"
    + textwrap.fill(PROSE, 72)
    + "\n\n- create a **second** key\n- deploy it, then *revoke* the first\n\n"
    + "See [the policy](https://evil.example/policy) and ![diagram](https://evil.example/d.png);"
    + " [@click=app.quit]click[/] <b>html</b>\n\n```\nclient.keys.rotate(key_id)\n```\n"
)
RST = (
    "Rotating API keys\n=================\n\n"
    + textwrap.fill(PROSE.replace("revoke", "*revoke*"), 72)
    + "\n\n- create a ``second`` key\n- use :func:`keys.rotate`\n\nExample::\n\n"
    + "    >>> client.keys.rotate(key_id)\n    'k2'\n\n"
    + "See `the policy <https://evil.example/policy>`_. [@click=app.quit]click[/]\n"
)


def make_app(text: str, render: str) -> GoldsetApp:
    frame = pl.DataFrame(
        [
            {
                "query_id": "q1",
                "query": "how do i rotate an api key",
                "doc_id": "api-keys/rotation",
                "title": "Rotating API keys",
                "text": text,
            }
        ]
    )
    session = JudgingSession(frame, "alice", now=lambda: "2026-01-01T12:00:00.000+00:00")
    return GoldsetApp(
        lambda: JudgeScreen(
            session,
            show_guidelines=False,
            clock=lambda: datetime(2026, 1, 1, 12, 0, 0),
            render=render,
            text_width=100,  # the default, whatever the config of the machine running this
        )
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_judge_text_plain_reflowed(snap_compare, size) -> None:
    assert snap_compare(make_app(PLAIN, "plain"), terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_judge_text_markdown(snap_compare, size) -> None:
    assert snap_compare(make_app(MARKDOWN, "markdown"), terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_judge_text_rst(snap_compare, size) -> None:
    assert snap_compare(make_app(RST, "rst"), terminal_size=size)
