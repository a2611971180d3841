"""Recording under SIGKILL: `goldset report --store --release` killed just before each call that
changes the disk while it records (kill_child.py counts them) leaves every history record
whole (or absent) and the manifest readable; running it again records the release once."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from pathlib import Path

import polars as pl

from goldset_tui.history.records import load_records
from goldset_tui.io.trec import read_qrels
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.manifest import read_manifest

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"
CHILD = Path(__file__).with_name("kill_child.py")
# Only the recording counts: reading the runs and computing the report change nothing on disk.
RECORDING = "goldset_tui.history.recording:record_all"


def test_a_kill_at_every_write_while_recording_leaves_whole_records(tmp_path):
    pool = SAMPLE / "pool.jsonl"
    store = tmp_path / "store"
    Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool)).add_grades(
        "alice",
        read_qrels(SAMPLE / "judgments" / "alice.qrels").with_columns(
            pl.lit(None, pl.String).alias("time"), pl.lit(None, pl.String).alias("note")
        ),
    )
    folder = SAMPLE / "releases" / "2026.1"
    report = [
        "report", "--qrels", str(store),
        "--strata", str(SAMPLE / "strata.csv"), "--run", f"bm25={folder / 'bm25.run'}",
        "--run", f"minilm={folder / 'minilm.run'}", "--samples", "100",
        "--store", str(store), "--release", "2026.1",
    ]  # fmt: skip

    def child(kill_at: int) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, str(CHILD), str(kill_at), RECORDING, *report]
        return subprocess.run(command, capture_output=True, text=True)

    counted = child(-1)  # from a store with no history yet, as every killed run below starts
    assert counted.returncode == 0, counted.stderr
    calls = int(counted.stdout.strip().splitlines()[-1].removeprefix("calls: "))
    # Two records and the manifest after each: at least a temporary file, its fsync and a rename
    # apiece, so a count this small means the child is no longer seeing the writes.
    assert calls >= 12
    complete = {(r.system, r.release): r.scores for r in load_records(store)}
    assert len(complete) == 2
    found = []
    for kill_at in range(calls):
        shutil.rmtree(store / "history", ignore_errors=True)
        killed = child(kill_at)
        # Every kill lands: a run that finished would prove nothing about the moment it names.
        assert killed.returncode == -signal.SIGKILL, (kill_at, killed.stdout, killed.stderr)
        read_manifest(store)  # whole
        records = load_records(store)  # every file whole, or refused (which fails this test)
        for r in records:
            assert r.scores == complete[(r.system, r.release)]
        found.append(len(records))
    # The kills span the whole recording: none written before the first, both before the last.
    assert found[0] == 0 and found[-1] >= 1 and sorted(found) == found
    again = child(-1)
    assert again.returncode == 0, again.stderr
    assert len(load_records(store)) == 2
