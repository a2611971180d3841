"""The real `goldset spotcheck` in tmux: keys, what is on screen, a SIGKILL that loses nothing the
screen called saved, resuming, and quitting with `q` (exit status 0)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tmuxutil import goldset_command

pytestmark = pytest.mark.terminal

SIZES = (
    "exact_identifier=54,negation=18,misspelled=22,short_keyword=61,multi_entity=49,paraphrase=96"
)
LABELS = """query,count,stratum
err_4021 on webhook delivery,3,exact_identifier
paginaton parameters,2,short_keyword
which regions are not covered,1,negation
api key,5,short_keyword
how do i stop the sync from running twice,1,paraphrase
sync stripe and salesforce accounts,1,multi_entity
"""


def test_spotcheck_in_a_real_terminal_survives_sigkill(tmux, tmp_path: Path) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text(LABELS, encoding="utf-8")
    store = tmp_path / "store"
    env = {k: os.environ[k] for k in ("GOLDSET_DATA_DIR", "GOLDSET_CONFIG_DIR")}
    argv = [
        goldset_command(),
        "spotcheck",
        str(labels),
        "--store",
        str(store),
        "--labeller",
        "ana",
        "--targets",
        SIZES,
    ]

    first = tmux(80, 24)
    first.start(argv, env)
    screen = first.wait_for("Query 1 of 6")
    assert "1 exact_identifier" in screen and "y agree" in screen
    first.send("y")
    first.wait_for("saved (1 of 6)")
    first.send("3")  # misspelled: a correction unless the classifier said so too
    screen = first.wait_for("saved (2 of 6)")
    agreed = re.search(r"Agreement (\d) of 2", screen)
    assert agreed is not None, screen
    first.signal(signal.SIGKILL)
    first.wait_dead()

    second = tmux(80, 24)
    second.start(argv, env)
    screen = second.wait_for("Query 3 of 6")
    assert "resumed: 2 answers" in screen and agreed.group(0) in screen
    second.send("q")
    second.wait_dead()
    # tmux marks the pane dead when the terminal closes, a moment before it has reaped the
    # process; the exit status only appears then.
    deadline = time.monotonic() + 10
    while second.exit_status() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert second.exit_status() == 0

    report = subprocess.run(
        [
            sys.executable,
            "-m",
            "goldset_tui",
            "spotcheck",
            str(labels),
            "--print",
            "--store",
            str(store),
            "--labeller",
            "ana",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )
    assert report.returncode == 0, report.stderr
    data = json.loads(report.stdout)
    assert data["n"] == 2 and data["agree"] == int(agreed.group(1))
