"""Every --seed is checked once, before any work: a negative or huge seed used to reach Polars and end in an
OverflowError traceback (`goldset compare --seed -1`, `goldset report --seed -1`)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from goldset_tui.commands._args import MAX_SEED

S = "sample_data"
COMMANDS = {
    "compare": ["compare", f"{S}/judgments/alice.qrels", f"a={S}/runs/bm25.run", f"b={S}/runs/minilm.run"],
    "report": ["report", "--qrels", "q.qrels", "--run", "a=a.run", "--strata", "s.csv"],
    "agreement": ["agreement", "--qrels", f"a={S}/judgments/alice.qrels", "--qrels", f"b={S}/judgments/bob.qrels"],
    "spotcheck": ["spotcheck", "labels.csv"],
    "sample": ["sample", "draw", "labels.csv"],
    "history": ["history", "--store", "store"],
    "judge": ["judge", f"{S}/pool.jsonl", "--labeller", "alice"],
}  # fmt: skip


@pytest.mark.parametrize("seed", ["-1", str(MAX_SEED + 1)])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_seed_out_of_range_is_refused_before_any_work(command: str, seed: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "goldset_tui", *COMMANDS[command], "--seed", seed],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"goldset: error: --seed {seed}: expected a whole number from 0 to {MAX_SEED}"
    ]
