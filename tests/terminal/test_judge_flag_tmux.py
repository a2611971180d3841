"""The real `goldset judge` in tmux at 80x24: f flags the candidate on screen (saved, shown on its
line), s skips one with a reason typed in, both are in the store when the program has gone, the
CSV export carries the flag, and judge says at exit where the judgments are kept. A second
`goldset judge` for the same labeller takes over the first, left open: y ends it (its grade saved)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from test_judge_unseen_tmux import HELP, env, shown, write_pool
from tmuxutil import goldset_command

pytestmark = pytest.mark.terminal


def test_flag_and_skip_keys_in_a_real_terminal(tmux, tmp_path: Path) -> None:
    pool = write_pool(tmp_path / "pool.jsonl")
    store = tmp_path / "store"
    argv = [goldset_command(), "judge", str(pool), "--labeller", "alice", "--store", str(store)]
    t = tmux(80, 24)
    t.start(argv, env=env())
    t.wait_for(HELP)
    t.send("f")  # over the guidelines: closes them, flags nothing
    t.wait_for(lambda s: HELP not in s and "nothing flagged" in s and shown(s) == 1)
    t.send("f")
    t.wait_for(lambda s: "saved flagged #1" in s and "\u2691 unsure" in s)
    t.send("2")
    t.wait_for(lambda s: "saved #1=2" in s and shown(s) == 2)
    t.send("s")
    t.wait_for("why?")
    t.send_literal("blank page")
    t.send("Enter")
    t.wait_for(lambda s: "saved skipped #2" in s and shown(s) == 3)
    t.send("q")
    t.wait_dead()
    said = t.capture(history=50)
    assert f"1 of 12 judged, 1 flagged, kept in {store}" in said.replace("\n", ""), said
    out = subprocess.run(
        [
            goldset_command(),
            "qrels",
            "--store",
            str(store),
            "--labeller",
            "alice",
            "--format",
            "csv",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "query_id,doc_id,grade,note,flag"
    assert lines[1].endswith(",2,,unsure") and len(lines) == 2
    from goldset_tui.store import Project

    history = Project.open(store).judgments("alice", history=True)
    assert history.select("kind", "note").rows() == [
        ("flag", "unsure"),
        ("judge", None),
        ("skip", "blank page"),
    ]


def test_a_second_judge_takes_over_the_session_left_open(tmux, tmp_path: Path) -> None:
    # The first session outlived its connection; the second names it, ends it on y (SIGHUP: it
    # saves and closes), and opens where it left off.
    pool = write_pool(tmp_path / "pool.jsonl")
    store = tmp_path / "store"
    argv = [goldset_command(), "judge", str(pool), "--labeller", "alice", "--store", str(store)]
    first = tmux(80, 24)
    first.start(argv, env=env())
    first.wait_for(HELP)
    first.send("Escape")
    first.wait_for(lambda s: HELP not in s and shown(s) == 1)
    first.send("3")
    first.wait_for("saved #1=3")
    pid = first.pid()
    second = tmux(100, 24)
    second.start(argv, env=env())
    question = second.wait_for("[y/N]")
    assert f"process {pid}" in question.replace("\n", "")
    second.send("y", "Enter")
    second.wait_for(lambda s: shown(s) == 2)  # opened where the first left off
    first.wait_dead()  # ended, not killed by the test
    second.send("q")
    second.wait_dead()
    out = subprocess.run(
        [goldset_command(), "qrels", "--store", str(store), "--labeller", "alice"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert [line.split()[3] for line in out.stdout.splitlines()] == ["3"]
