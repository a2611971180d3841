"""Recording under SIGKILL: `goldset report --store --release` killed at moments spread over its
run leaves every history record whole (or absent) and the manifest readable; running it again
records the release once."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl

from goldset_tui.history.records import load_records
from goldset_tui.io.trec import read_qrels
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.manifest import read_manifest

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"


def test_a_kill_while_recording_leaves_whole_records(tmp_path):
    pool = SAMPLE / "pool.jsonl"
    store = tmp_path / "store"
    Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool)).add_grades(
        "alice",
        read_qrels(SAMPLE / "judgments" / "alice.qrels").with_columns(
            pl.lit(None, pl.String).alias("time"), pl.lit(None, pl.String).alias("note")
        ),
    )
    folder = SAMPLE / "releases" / "2026.1"
    command = [
        sys.executable, "-m", "goldset_tui", "report", "--qrels", str(store),
        "--strata", str(SAMPLE / "strata.csv"), "--run", f"bm25={folder / 'bm25.run'}",
        "--run", f"minilm={folder / 'minilm.run'}", "--samples", "100",
        "--store", str(store), "--release", "2026.1",
    ]  # fmt: skip
    started = time.monotonic()
    subprocess.run(command, check=True, capture_output=True)
    took = time.monotonic() - started
    complete = {(r.system, r.release): r.scores for r in load_records(store)}
    seen = []
    for i in range(14):
        for f in (store / "history").glob("*.json"):
            f.unlink()
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(took * (0.4 + 0.06 * i))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        read_manifest(store)  # whole
        records = load_records(store)  # every file whole, or refused (which fails this test)
        for r in records:
            assert r.scores == complete[(r.system, r.release)]
        seen.append(len(records))
    print(f"\nrecords found after each SIGKILL: {seen}")
    subprocess.run(command, check=True, capture_output=True)
    assert len(load_records(store)) == 2
