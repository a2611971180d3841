"""The real `goldset judge` in a 160-column tmux: a document hard-wrapped at 72 columns fills the
reading width (100 by default), `w` widens it and the next session remembers that; with
`--render rst` the section title's underline is gone and a link target is plain text."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest
from tmuxutil import goldset_command

pytestmark = pytest.mark.terminal

PROSE = (
    "To rotate an API key, create a second key and deploy it everywhere the first one is used. "
    "Both keys stay valid during the overlap, so no client ever sees an authentication error. "
    "When every client uses the new key, revoke the first one; keys older than ninety days are "
    "flagged in the console and in the weekly security report, which the team reads on Mondays. "
    "Nobody needs to restart anything."
)
TEXT = (
    "Rotating keys\n=============\n\n"
    + textwrap.fill(PROSE, 72)
    + "\n\nSee `the policy <https://evil.example/policy>`_.\n"
)


def write_pool(path: Path) -> Path:
    row = {"query_id": "q1", "query": "zzz", "doc_id": "d1", "title": "Doc", "text": TEXT}
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return path


def env() -> dict[str, str]:
    return {k: os.environ[k] for k in ("GOLDSET_DATA_DIR", "GOLDSET_CONFIG_DIR")}


def prose_lines(screen: str) -> list[str]:
    """The document's paragraph as the terminal shows it, one entry per screen line."""
    words = set(PROSE.split())
    out = []
    for line in screen.splitlines():
        text = line.strip()
        if text and all(w in words for w in text.split()):
            out.append(text)
    return out


def open_judge(tmux, tmp_path: Path, *extra: str):
    pool = write_pool(tmp_path / "pool.jsonl")
    argv = [goldset_command(), "judge", str(pool), "--labeller", "ana"]
    t = tmux(160, 45)
    t.start([*argv, "--store", str(tmp_path / "store"), *extra], env=env())
    t.wait_for("Guidelines")
    t.send("Escape")
    screen = t.wait_for(lambda s: "Guidelines" not in s and "query 0/1" in s)
    return t, screen


def test_a_72_column_document_fills_the_reading_width_at_160(tmux, tmp_path: Path) -> None:
    t, screen = open_judge(tmux, tmp_path)
    lines = prose_lines(screen)
    assert " ".join(lines) == PROSE, screen
    assert 90 < max(len(line) for line in lines) <= 100, lines
    t.send("w")  # 100 -> 120, remembered in the config file
    screen = t.wait_for("Reading width: 120 columns")
    lines = prose_lines(screen)
    assert 100 < max(len(line) for line in lines) <= 120, lines
    t.send("q")
    t.wait_dead()
    config = Path(os.environ["GOLDSET_CONFIG_DIR"]).glob("*.toml")
    assert any("text_width = 120" in p.read_text() for p in config)
    # The next session opens at 120.
    t.close()
    t2, screen = open_judge(tmux, tmp_path)
    assert 100 < max(len(line) for line in prose_lines(screen)) <= 120, screen
    t2.send("q")
    t2.wait_dead()


def test_render_rst_in_the_real_terminal(tmux, tmp_path: Path) -> None:
    t, screen = open_judge(tmux, tmp_path, "--render", "rst")
    assert "Rotating keys" in screen and "=============" not in screen
    assert "See the policy <https://evil.example/policy>." in screen
    escapes = t.capture(escapes=True)
    assert "\x1b]8" not in escapes  # no hyperlink reached the terminal
    t.send("q")
    t.wait_dead()
