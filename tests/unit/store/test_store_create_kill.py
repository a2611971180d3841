"""A store being made killed with SIGKILL before each call that changes the disk: the folder it
leaves (a manifest lock, a temporary manifest) is never one that every later `judge` or `import
--pool` refuses as "not empty and not a goldset store"; the next command makes the store, and the
temporary manifest is gone once it has."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from goldset_tui.cli import main
from goldset_tui.store import Project, default_store_for
from goldset_tui.store.project import refuse_busy_folder

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "sample_data"
POOL = SAMPLE / "pool.jsonl"
QRELS = SAMPLE / "judgments" / "alice.qrels"
CHILD = ROOT / "tests" / "unit" / "history" / "kill_child.py"
# Counted only while the store is chosen and made: the import's own writes come after.
MAKING = "goldset_tui.app.importing:open_import_store"
IMPORT = ["import", "--pool", str(POOL), "--labeller", "alice", "--human", str(QRELS)]


def child(kill_at: int) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(CHILD), str(kill_at), MAKING, *IMPORT]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_a_kill_at_every_step_of_making_a_store_leaves_a_folder_the_next_command_uses(capsys):
    store = default_store_for(POOL)
    data = Path(os.environ["GOLDSET_DATA_DIR"])
    counted = child(-1)
    assert counted.returncode == 0, counted.stderr
    calls = int(counted.stdout.strip().splitlines()[-1].removeprefix("calls: "))
    # mkdir, the lock file, the temporary manifest, its write, chmod, fsync and rename at least.
    assert calls >= 6
    grades = Project.open(store).qrels("alice")
    left_behind = []
    for kill_at in range(calls):
        shutil.rmtree(data)  # the store and the list of known stores: as the counted run began
        killed = child(kill_at)
        assert killed.returncode == -signal.SIGKILL, (kill_at, killed.stdout, killed.stderr)
        if store.exists():
            left_behind.append(sorted(p.name for p in store.iterdir()))
            if not (store / "manifest.toml").exists():
                refuse_busy_folder(store)  # what `judge` checks before making the store
        assert main(IMPORT) == 0, (kill_at, capsys.readouterr().err)
        capsys.readouterr()
        assert Project.open(store).qrels("alice").equals(grades)
        assert not list(store.glob(".tmp-*")), kill_at
    print(f"\nmaking a store: {calls} kill points, {len(left_behind)} left a folder behind")
    # The kills did leave the creation's files behind, the ones that once blocked the folder.
    assert any(any(n.startswith(".tmp-manifest.toml.") for n in names) for names in left_behind)
