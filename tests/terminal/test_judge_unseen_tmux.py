"""The real `goldset demo` / `goldset judge` in tmux: no grade for a document nobody saw.

- Keys typed while "Loading the pool..." is on screen grade nothing, move nothing and open no
  dialog, even when they are handled after the pool arrived (a ``sitecustomize`` on the child's
  path keeps the UI thread busy at that moment until the keys are typed and read: no sleeps).
- On a first sitting a grade key only closes the guidelines.
- Re-grading a judged candidate stays on it, says what changed, and the next k is the one before.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from tmuxutil import goldset_command

pytestmark = pytest.mark.terminal

# Put on the child's path: the UI thread is busy at the moment the loaded pool reaches the screen
# (as on a loaded machine) until the test has typed its keys and Textual's input thread has read
# them all from the terminal; so they are handled after the pool arrived, before anything drew.
BUSY_HOOK = """
import os, select, time
folder = os.environ.get("GOLDSET_TEST_BUSY_UI")
if folder:
    import goldset_tui.ui.screens.judge as judge_module
    real_ready = judge_module.JudgeScreen._ready
    def busy_ready(self, session):
        open(os.path.join(folder, "busy"), "w").close()
        while not os.path.exists(os.path.join(folder, "typed")):
            time.sleep(0.02)
        while select.select([0], [], [], 0)[0]:  # bytes still unread on the terminal
            time.sleep(0.02)
        real_ready(self, session)
    judge_module.JudgeScreen._ready = busy_ready
"""

HELP = "Escape, Enter or ? closes"  # the guidelines dialog's own line (not the words said after)
CANDIDATE = re.compile(r"^\s*#(\d+)/(\d+) ", re.MULTILINE)


def env(**extra: str) -> dict[str, str]:
    out = {k: os.environ[k] for k in ("GOLDSET_DATA_DIR", "GOLDSET_CONFIG_DIR")}
    return {**out, **extra}


def qrels(store: str | Path, labeller: str) -> list[tuple[str, str, int]]:
    out = subprocess.run(
        [goldset_command(), "qrels", "--store", str(store), "--labeller", labeller],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    return [(q, d, int(g)) for q, _, d, g in (line.split() for line in out.stdout.splitlines())]


def demo_store() -> str:
    out = subprocess.run(
        [goldset_command(), "demo", "--where"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def shown(screen: str) -> int:
    """The number of the candidate on screen (#N/size), 0 when none is."""
    found = CANDIDATE.search(screen)
    return int(found.group(1)) if found else 0


def test_keys_typed_while_the_demo_loads_grade_nothing(tmux, tmp_path: Path) -> None:
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(BUSY_HOOK)
    path = os.pathsep.join(p for p in (str(hook), os.environ.get("PYTHONPATH", "")) if p)
    t = tmux(120, 30)
    t.start(
        [goldset_command(), "demo", "--fresh"],
        env=env(PYTHONPATH=path, GOLDSET_TEST_BUSY_UI=str(hook)),
    )
    t.wait_for("Loading the pool")
    deadline = time.monotonic() + 120
    while not (hook / "busy").exists():  # the pool is loaded; the screen still says loading
        assert time.monotonic() < deadline, "the pool never finished loading"
        time.sleep(0.05)
    # A labeller's type-ahead: a grade, then "go to q01" with digits in it, then more.
    t.send("2", "g")
    t.send_literal("q01")
    t.send("Enter", "j", "3")
    (hook / "typed").write_text("")
    # The first sitting: the guidelines, and over them the notice.
    screen = t.wait_for(lambda s: HELP in s and "8 keys typed while" in s)
    assert "Go to query" not in screen
    t.send("Escape")
    screen = t.wait_for(lambda s: HELP not in s and shown(s) > 0)
    assert shown(screen) == 1  # not moved by the j
    t.send("q")
    t.wait_dead()
    assert events_in_store() == 0  # no grade for a candidate nobody saw, no event at all


def events_in_store() -> int:
    from goldset_tui.store import Project

    return Project.open(demo_store()).judgments("demo", history=True).height


def test_a_grade_key_on_the_guidelines_only_closes_them(tmux) -> None:
    t = tmux(120, 30)
    t.start([goldset_command(), "demo", "--fresh"], env=env())
    t.wait_for(HELP)  # the first sitting's guidelines cover the candidate
    t.send("2")  # they close, nothing else
    # Waits for the whole frame: a capture can land between the status line's update and the
    # candidate's (seen at load 10: the dialog's border still on screen, no candidate line).
    screen = t.wait_for(lambda s: HELP not in s and "nothing graded" in s and shown(s) > 0)
    assert shown(screen) == 1
    t.send("2")  # now it is in view: a grade
    t.wait_for(lambda s: "saved #1=2" in s)
    t.send_literal("?")  # the guidelines again, later: the same
    t.wait_for(HELP)
    t.send("3")
    t.wait_for(lambda s: HELP not in s and "nothing graded" in s)
    t.send("q")
    t.wait_dead()
    graded = qrels(demo_store(), "demo")
    assert [g for _, _, g in graded] == [2]


def write_pool(path: Path) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for q in range(2):
            for d in range(6):
                row = {
                    "query_id": f"q{q}",
                    "query": f"rotate key {q}",
                    "doc_id": f"d{q}-{d:02d}",
                    "text": f"Candidate {q}-{d}: paragraph {d * 7919 % 101} of the manual.",
                }
                fh.write(json.dumps(row) + "\n")
    return path


def test_re_grading_stays_put_and_says_what_changed(tmux, tmp_path: Path) -> None:
    pool = write_pool(tmp_path / "pool.jsonl")
    store = tmp_path / "store"
    argv = [goldset_command(), "judge", str(pool), "--labeller", "alice", "--store", str(store)]
    t = tmux(120, 30)
    t.start(argv, env=env())
    t.wait_for(HELP)
    t.send("Escape")
    t.wait_for(lambda s: HELP not in s and shown(s) == 1)
    t.send("1")
    t.wait_for(lambda s: "saved #1=1" in s and shown(s) == 2)
    t.send("2")
    t.wait_for(lambda s: "saved #2=2" in s and shown(s) == 3)
    t.send("k")
    t.wait_for(lambda s: shown(s) == 2)
    t.send("3")  # a correction of #2
    screen = t.wait_for("saved #2: 2 \u2192 3")
    assert shown(screen) == 2 and "Re-graded #2: 2 \u2192 3" in screen  # stayed, and said so
    t.send("k")  # the one before it, not one after the next unjudged
    t.wait_for(lambda s: shown(s) == 1)
    t.send("q")
    t.wait_dead()
    assert sorted(g for _, _, g in qrels(store, "alice")) == [1, 3]
