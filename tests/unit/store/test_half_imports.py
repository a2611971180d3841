"""An import that stopped half way (killed, or failed with its own clean-up failing too) is taken
back when the store is next opened: the new name it entered, its record and a machine's
provenance file are gone, so the import is all there or not there at all. A live import (its
writer lock held) is left alone; a temporary manifest a killed writer left is removed on open."""

from __future__ import annotations

import errno
import subprocess
import sys
from pathlib import Path

import pytest
from test_human_import_kill import QRELS, killed, sample_store

import goldset_tui.store.manifest as manifest_module
import goldset_tui.store.writer as writer_module
from goldset_tui.cli import main
from goldset_tui.store import Project
from goldset_tui.store.files import TMP_PREFIX
from goldset_tui.store.manifest import update_manifest


def tree(store: Path) -> set[str]:
    return {str(p.relative_to(store)) for p in store.rglob("*")}


def test_a_machine_import_killed_before_its_grades_is_gone_on_open(tmp_path: Path) -> None:
    store = sample_store(tmp_path)
    killed("machine_import_child.py", store, "llm", QRELS, "before-part")
    assert (store / "machine" / "llm").is_dir()  # the provenance file and the record landed
    project = Project.open(store)
    assert project.labellers() == []  # it was listed, marked a machine, with no grades
    assert "llm" not in project.manifest.get("labellers", {})
    assert not (store / "machine").exists()
    argv = ["import", "--store", str(store), "--labeller", "llm", "--machine", str(QRELS)]
    assert main(argv) == 0
    assert Project.open(store).qrels("llm").height == len(QRELS.read_text().splitlines())


@pytest.mark.parametrize("kind", ["--human", "--machine"])
def test_a_failed_import_whose_clean_up_fails_too_is_gone_on_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, capsys
) -> None:
    """The grades' write fails, and so does every manifest write after the record (a disk that
    refuses every write): the import cannot take itself back; the next open does."""
    store = sample_store(tmp_path)
    before = tree(store)
    writes = []
    real = manifest_module.atomic_write_bytes

    def manifest_write(path: Path, data: bytes) -> None:
        writes.append(path)
        if len(writes) > 1:
            raise OSError(errno.EIO, "Input/output error", str(path))
        real(path, data)

    def batch(self, frame):
        raise OSError(errno.EIO, "Input/output error", str(store / "judgments"))

    monkeypatch.setattr(manifest_module, "atomic_write_bytes", manifest_write)
    monkeypatch.setattr(writer_module.JudgmentWriter, "write_batch", batch)
    argv = ["import", "--store", str(store), "--labeller", "x", kind, str(QRELS)]
    assert main(argv) == 2
    assert len(writes) == 2  # the record, then the failed taking back
    assert "x" in manifest_module.read_manifest(store)["labellers"]  # left as the fault left it
    monkeypatch.undo()  # the disk works again

    assert Project.open(store).labellers() == []
    assert tree(store) - before <= {"journal", "journal/x.jsonl", "journal/x.jsonl.lock"}


def test_a_live_import_is_left_alone_and_taken_back_once_it_ended(tmp_path: Path) -> None:
    store = sample_store(tmp_path)
    project = Project.open(store)
    writer = project.writer("bob", register=False)  # the import's lock, held

    def half(data: dict) -> None:  # the import's record, its grades still to come
        record = {"file": "f", "sha256": "0" * 64, "time": "t", "labels": 3, "written": 3}
        data["labellers"]["bob"] = {"name": "bob", "first": "t", "imports": [record]}

    update_manifest(store, half)
    try:
        assert Project.open(store).labellers() == ["bob"]  # being imported: not touched
    finally:
        writer.close()
    assert Project.open(store).labellers() == []  # the importer is gone: taken back


def test_a_temporary_manifest_a_killed_writer_left_is_removed_on_open(tmp_path: Path) -> None:
    store = sample_store(tmp_path)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], text=True,
                          capture_output=True, check=True)  # fmt: skip
    dead = store / f"{TMP_PREFIX}manifest.toml.{int(gone.stdout)}.abcd1234"
    live = store / f"{TMP_PREFIX}manifest.toml.{__import__('os').getpid()}.abcd1234"
    dead.write_text("x")
    live.write_text("x")
    Project.open(store)
    assert not dead.exists()
    assert live.exists()  # a live writer's is its own


def test_a_known_machine_keeps_its_grades_and_loses_a_killed_import_s_provenance(
    tmp_path: Path,
) -> None:
    store = sample_store(tmp_path)
    argv = ["import", "--store", str(store), "--labeller", "llm", "--machine", str(QRELS)]
    assert main(argv) == 0
    kept = sorted((store / "machine" / "llm").iterdir())
    second = tmp_path / "second.qrels"
    lines = QRELS.read_text().splitlines()
    q, z, d, g = lines[0].split()
    second.write_text("\n".join([f"{q} {z} {d} {3 - int(g)}", *lines[1:]]) + "\n")
    killed("machine_import_child.py", store, "llm", second, "after-provenance")
    assert len(list((store / "machine" / "llm").iterdir())) == 2  # a file no record names
    project = Project.open(store)
    assert sorted((store / "machine" / "llm").iterdir()) == kept
    assert project.qrels("llm").height == len(lines)


@pytest.mark.parametrize("kind", ["--human", "--machine"])
def test_an_import_failing_at_its_record_says_nothing_was_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, capsys
) -> None:
    """The record's manifest write lands, but its folder's fsync fails and cannot be taken back
    (a disk refusing every write): the write's own error says the new manifest IS in place,
    which of the import is not true (its grades never came): the import's error says so."""
    store = sample_store(tmp_path)
    real = manifest_module.atomic_write_bytes

    def in_place(path: Path, data: bytes) -> None:
        real(path, data)
        raise OSError(
            errno.EIO, "Input/output error (the new file IS in place, but ...)", str(path)
        )

    monkeypatch.setattr(manifest_module, "atomic_write_bytes", in_place)
    argv = ["import", "--store", str(store), "--labeller", "x", kind, str(QRELS)]
    assert main(argv) == 2
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert "nothing was imported" in err and "IS in place" not in err
    assert Project.open(store).labellers() == []
