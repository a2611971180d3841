"""What failed and killed writes leave behind, and who removes it.

`merge --into NEWDIR` builds the new store in a hidden ``.NEWDIR.merging-PID`` beside it: a failed
run removes it at once; a killed one leaves it, and the next merge into NEWDIR or the next open of
NEWDIR removes it (its process is gone). A failed human import of a new name leaves no empty
``[labellers.NAME]`` entry in the manifest.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import goldset_tui.store.merge as merge_module
from goldset_tui.cli import main
from goldset_tui.model import Judgment
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.manifest import read_manifest

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "sample_data"
CHILD = ROOT / "tests" / "unit" / "history" / "kill_child.py"


def two_stores(tmp_path: Path) -> tuple[Path, Path]:
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1"}\n')
    paths = []
    for name, labeller in (("a", "ana"), ("b", "bob")):
        project = Project.create(tmp_path / name, pool_path=pool, pool_sha256=sha256_file(pool))
        with project.writer(labeller) as writer:
            for i in range(5):
                when = f"2026-11-30T10:0{i}:00.000Z"
                writer.record(Judgment(labeller, "q1", f"d{i}", i % 4, when, seconds=1.0))
        paths.append(project.path)
    return paths[0], paths[1]


def building(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in tmp_path.glob(".new.merging-*"))


@pytest.mark.parametrize("at", ["_merge_locked", "rename"])
def test_a_failed_merge_into_a_new_store_leaves_no_hidden_copy(tmp_path, monkeypatch, capsys, at):
    a, b = two_stores(tmp_path)

    def fail(*_args, **_kwargs):
        raise OSError(errno.EIO, "Input/output error", str(tmp_path / "new"))

    if at == "rename":
        monkeypatch.setattr(merge_module.os, "rename", fail)
    else:
        monkeypatch.setattr(merge_module, at, fail)
    assert main(["merge", "--into", str(tmp_path / "new"), str(a), str(b)]) == 2
    assert "Input/output error" in capsys.readouterr().err
    assert building(tmp_path) == []
    assert not (tmp_path / "new").exists()


def test_a_killed_merge_into_a_new_store_is_cleaned_by_the_next(tmp_path, capsys):
    """SIGKILLed before each call that changes the disk: whatever hidden copy the kill leaves is
    gone once the next merge into the same folder has run (or once that folder is opened)."""
    a, b = two_stores(tmp_path)
    new = tmp_path / "new"
    argv = ["merge", "--into", str(new), str(a), str(b)]

    def child(kill_at: int) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, str(CHILD), str(kill_at), "-", *argv]
        return subprocess.run(command, capture_output=True, text=True, timeout=120)

    counted = child(-1)
    assert counted.returncode == 0, counted.stderr
    calls = int(counted.stdout.strip().splitlines()[-1].removeprefix("calls: "))
    expected = sorted(Project.open(new).judgments().select("labeller", "doc_id", "grade").rows())
    left = 0
    for kill_at in range(0, calls, max(1, calls // 25)):  # about 25 points spread over the run
        if new.exists():
            shutil.rmtree(new)
        killed = child(kill_at)
        assert killed.returncode == -signal.SIGKILL, (kill_at, killed.stdout, killed.stderr)
        left += bool(building(tmp_path))
        if new.exists():  # killed after the rename: opening it removes the leftovers
            Project.open(new)
        else:
            assert main(argv) == 0, capsys.readouterr().err
        assert building(tmp_path) == [], kill_at
        rows = Project.open(new).judgments().select("labeller", "doc_id", "grade").rows()
        assert sorted(rows) == expected
    assert left  # the kills did leave hidden copies: the ones that used to stay for good
    print(f"\nmerge --into NEWDIR: {calls} disk-changing calls, {left} kills left a hidden copy")


@pytest.mark.parametrize("at", ["record", "grades"])
def test_a_failed_human_import_leaves_no_empty_labeller(tmp_path, monkeypatch, capsys, at):
    import goldset_tui.store.human as human
    from goldset_tui.store.writer import JudgmentWriter

    pool = SAMPLE / "pool.jsonl"
    store = tmp_path / "store"
    Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool))
    full = OSError(errno.ENOSPC, "No space left on device", str(store / "manifest.toml"))

    def fail(*_args, **_kwargs):
        raise full

    if at == "record":
        monkeypatch.setattr(human, "update_manifest", fail)
    else:
        monkeypatch.setattr(JudgmentWriter, "write_batch", fail)
    qrels = SAMPLE / "judgments" / "alice.qrels"
    argv = ["import", "--store", str(store), "--labeller", "bob", "--human", str(qrels)]
    assert main(argv) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert "bob" not in read_manifest(store).get("labellers", {})
    assert Project.open(store).labellers() == []
    monkeypatch.undo()  # the disk has room again: the same import goes through whole
    assert main(argv) == 0
    assert Project.open(store).qrels("bob").height == len(qrels.read_text().splitlines())


def test_a_temporary_manifest_left_by_a_kill_goes_with_the_next_manifest_update(tmp_path):
    # A kill between the temporary manifest's creation and its rename (a session's end stamping
    # the labeller, an import's record) left it in the store for good.
    a, _b = two_stores(tmp_path)
    stray = a / ".tmp-manifest.toml.k1ll3d"
    stray.write_text("half a manifest")
    with Project.open(a).writer("ana") as writer:
        writer.record(Judgment("ana", "q1", "d9", 1, "2026-11-30T11:00:00.000Z", seconds=1.0))
    assert not stray.exists()
    assert read_manifest(a)["labellers"]["ana"]  # the update itself went through


def test_a_temporary_file_of_a_killed_writer_goes_with_the_next_write(tmp_path):
    # A kill between the temporary file and its rename left it beside the file for good (the
    # known-stores list, a pool written with -o); one of a live writer must stay.
    from goldset_tui.store.files import atomic_write_bytes

    target = tmp_path / "stores.json"
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True
    )
    gone = tmp_path / f".tmp-stores.json.{int(dead.stdout)}.abcd1234"
    live = tmp_path / f".tmp-stores.json.{os.getppid()}.abcd1234"
    other = tmp_path / f".tmp-stores.json.1.{int(dead.stdout)}.abcd1234"  # another file's
    for stray in (gone, live, other):
        stray.write_text("{")
    atomic_write_bytes(target, b"{}")
    assert not gone.exists() and live.exists() and other.exists()
    assert target.read_bytes() == b"{}"
