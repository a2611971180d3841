"""Every screen app exits cleanly when its terminal goes away (before, after a tmux server was
killed, `goldset review` processes were left spinning at 10% CPU while `judge` exited).

Each case opens a real `goldset` screen in its own tmux server, goes to a screen of it, then
kills the whole server (`tmux kill-server`: the pane's terminal hangs up and the program gets
SIGHUP). The program must be gone within a few seconds, by its own handler: exit status
128 + SIGHUP (a process killed by the signal's default action would read -1, one that never
exits leaves no status at all).
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from tmuxutil import goldset_command

from goldset_tui.io.trec import read_qrels
from goldset_tui.locations import projects_dir
from goldset_tui.store.files import sha256_file
from goldset_tui.store.project import Project

pytestmark = pytest.mark.terminal

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
REVIEW = [
    "review",
    "--qrels",
    str(SAMPLE / "judgments" / "alice.qrels"),
    "--run",
    f"bm25={SAMPLE / 'runs' / 'bm25.run'}",
    "--run",
    f"minilm={SAMPLE / 'runs' / 'minilm.run'}",
    "--strata",
    str(SAMPLE / "strata.csv"),
    "--measure",
    "Success@3",
    "--samples",
    "100",
]
# minilm's column, paraphrase row (it misses 3 of 7 there), its first failing query's top k.
TO_TOPK = ["Right", "Right", "Right", *["Down"] * 5, "Enter", "Enter"]
AGREEMENT = [
    "agreement",
    "--qrels",
    f"alice={SAMPLE / 'judgments' / 'alice.qrels'}",
    "--qrels",
    f"bob={SAMPLE / 'judgments' / 'bob.qrels'}",
    "--scale",
    "0-3",
    "--samples",
    "50",
    "--screen",
]
LABELS = "query,count,stratum\napi key,5,short_keyword\nwhich regions are not covered,1,negation\n"

# (name, argv after `goldset`, text that shows the screen is up, keys, text after the keys)
CASES = [
    ("review: report", REVIEW, "table closes", [], "table closes"),
    ("review: whole report", REVIEW, "table closes", ["s"], "beyond its table"),
    ("review: top k", REVIEW, "table closes", TO_TOPK, "full ids"),
    ("review: closure", REVIEW, "table closes", ["c"], "expected"),
    ("agreement", AGREEMENT, "Agreement", [], "Disagreements"),
    ("home", [], "goldset: projects", [], "prior"),
    (
        "spotcheck",
        ["spotcheck", "{labels}", "--store", "{store}", "--labeller", "ana"],
        "Query 1",
        [],
        "Query 1",
    ),
]


def _home_project() -> None:
    """A project in the (test's private) data folder, for the home screen to list."""
    pool = SAMPLE / "pool.jsonl"
    project = Project.create(
        projects_dir() / "sample", pool_path=pool, pool_sha256=sha256_file(pool)
    )
    project.import_prior(read_qrels(SAMPLE / "judgments" / "alice.qrels"))


def _gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        stat = Path(f"/proc/{pid}/stat")
        if stat.exists() and stat.read_text().rsplit(")", 1)[-1].split()[0] == "Z":
            return True  # dead, not yet reaped by its parent
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)


@pytest.mark.parametrize(("name", "argv", "up", "keys", "then"), CASES, ids=[c[0] for c in CASES])
def test_killing_the_tmux_server_ends_the_screen_app(
    tmux, tmp_path: Path, name, argv, up, keys, then
) -> None:
    env = {k: os.environ[k] for k in ("GOLDSET_DATA_DIR", "GOLDSET_CONFIG_DIR")}
    labels = tmp_path / "labels.csv"
    labels.write_text(LABELS, encoding="utf-8")
    if name == "home":
        _home_project()
    args = [a.format(labels=labels, store=tmp_path / "store") for a in argv]
    t = tmux(100, 30)
    t.start([goldset_command(), *args], env, cwd=tmp_path)
    t.wait_for(up, timeout=60)
    for key in keys:
        t.send(key)
        time.sleep(0.3)
    t.wait_for(then, timeout=120)
    pid = t.pid()
    # The terminal hangs up under the program. The pane's session leader is the test's reporting
    # parent, which ignores SIGHUP: as under a supervisor or a wrapper script, the program itself
    # gets no signal and has to notice the dead terminal on its own.
    t._tmux("kill-server", check=False)
    try:
        assert _gone(pid), f"{name}: still running after its terminal went away"
        assert t.wait_exit_status() == 128 + signal.SIGHUP, name
    finally:
        if not _gone(pid, timeout=0):
            os.kill(pid, signal.SIGKILL)
