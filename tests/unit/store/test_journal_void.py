"""A grade reported NOT SAVED is never counted later, even when the failed append's lines stay on
disk: the cut-off after a failed fdatasync can fail too, or succeed without ever reaching the disk
(a power cut then brings the line back). The journal then voids the failed sequence numbers with a
durable record, and every reader drops what a void names (docs/store.md, "A failed append")."""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import goldset_tui.store.files as files_module
import goldset_tui.store.journal as journal_module
import goldset_tui.store.writer as writer_module
from goldset_tui.errors import InputError
from goldset_tui.model import Judgment
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.journal import Journal, read_journal, replay


def make(tmp_path: Path) -> Project:
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1"}\n')
    return Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))


def J(doc: str, grade: int) -> Judgment:
    return Judgment("alice", "q1", doc, grade, "2026-01-01T00:00:00Z")


def counted(project: Project) -> dict[str, int]:
    return {d: g for _, d, g in Project.open(project.path).qrels("alice").iter_rows()}


class Faults:
    """Script the journal's system calls: each list holds what the next calls do (True: fail
    with EIO; 'noop': pretend to succeed without touching the file, as a truncate that a power
    cut then undoes); once a list is empty, calls go through."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sync: list[bool] = []
        self.truncate: list[bool | str] = []
        self.write: list[bool] = []
        real_sync, real_truncate, real_write = files_module._datasync, os.ftruncate, os.write

        def write(fd: int, data: bytes) -> int:
            if self.write and self.write.pop(0):
                raise OSError(errno.EIO, "Input/output error")
            return real_write(fd, data)

        def sync(fd: int) -> None:
            if self.sync and self.sync.pop(0):
                raise OSError(errno.EIO, "Input/output error")
            real_sync(fd)

        def truncate(fd: int, size: int) -> None:
            action = self.truncate.pop(0) if self.truncate else False
            if action == "noop":
                return
            if action:
                raise OSError(errno.EIO, "Input/output error")
            real_truncate(fd, size)

        monkeypatch.setattr(files_module, "_datasync", sync)
        monkeypatch.setattr(journal_module.os, "ftruncate", truncate)
        monkeypatch.setattr(journal_module.os, "write", write)


@pytest.fixture
def faults(monkeypatch: pytest.MonkeyPatch) -> Iterator[Faults]:
    yield Faults(monkeypatch)


def test_a_failed_sync_whose_cut_also_fails_is_not_counted_on_reopen(tmp_path, faults) -> None:
    project = make(tmp_path)
    writer = project.writer("alice")
    writer.record(J("d1", 1))
    faults.sync, faults.truncate = [True], [True]  # the append's sync, then its cut-off
    with pytest.raises(OSError, match="Input/output error"):
        writer.record(J("d2", 3))  # the screen says NOT SAVED
    assert "d2" in writer.journal_path.read_text()  # its bytes are still there
    assert counted(project) == {"d1": 1}  # a reader now, while the session is open
    writer.record(J("d3", 2))
    writer.close()
    assert counted(project) == {"d1": 1, "d3": 2}


def test_a_power_cut_that_brings_the_line_back_does_not_count_it(tmp_path, faults) -> None:
    project = make(tmp_path)
    writer = project.writer("alice")
    writer.record(J("d1", 1))
    # The cut-off "succeeds" in the page cache but its fdatasync fails: after a power cut the
    # disk holds the line. 'noop' leaves the bytes where the power cut would bring them back.
    faults.sync, faults.truncate = [True, True], ["noop"]
    with pytest.raises(OSError):
        writer.record(J("d2", 3))
    # The session dies here (nothing else written); the next open must not count d2.
    journal = writer.journal_path
    assert "d2" in journal.read_text()
    assert counted(project) == {"d1": 1}
    assert read_journal(journal).voided == 1


def test_a_persistent_fault_voids_with_the_next_save_that_lands(tmp_path, faults) -> None:
    project = make(tmp_path)
    writer = project.writer("alice")
    writer.record(J("d1", 1))
    # The append's sync, its cut-off, and the void's own write all fail: the void is owed.
    faults.sync, faults.truncate, faults.write = [True], [True], [False, True]
    with pytest.raises(OSError):
        writer.record(J("d2", 3))
    assert counted(project) == {"d1": 1, "d2": 3}  # nothing on disk says otherwise... yet
    writer.record(J("d3", 0))  # the disk is back: the void goes in the same write and sync
    assert counted(project) == {"d1": 1, "d3": 0}
    writer.close()
    assert counted(project) == {"d1": 1, "d3": 0}


def test_a_failed_batch_with_a_torn_fragment_is_voided_as_a_whole(
    tmp_path, faults, monkeypatch
) -> None:
    project = make(tmp_path)
    writer = project.writer("alice")
    writer.record(J("d1", 1))
    real_write = os.write
    calls = []

    def most_then_full(fd: int, data: bytes) -> int:
        calls.append(fd)
        if len(calls) == 1:  # whole lines of the batch and a torn one, then the disk is full
            real_write(fd, bytes(data[: len(data) * 3 // 4]))
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(journal_module.os, "write", most_then_full)
    faults.truncate = [True]
    with pytest.raises(OSError, match="No space left"):
        writer.record_many([J(f"g{i}", 2) for i in range(20)])
    assert counted(project) == {"d1": 1}  # the fragment before the void is not damage
    writer.record(J("d2", 3))
    writer.close()
    assert counted(project) == {"d1": 1, "d2": 3}


def test_compaction_and_a_crash_inside_it_keep_the_void(tmp_path, faults, monkeypatch) -> None:
    project = make(tmp_path)
    writer = project.writer("alice")
    writer.record(J("d1", 1))
    faults.sync, faults.truncate = [True], [True]
    with pytest.raises(OSError):
        writer.record(J("d2", 3))
    writer.record(J("d3", 2))
    # A crash between the part and the journal's truncation: the part holds d1 and d3, the
    # journal still holds every line, the voided one and its void too.
    monkeypatch.setattr(Journal, "truncate", lambda self: (_ for _ in ()).throw(OSError("down")))
    writer.close()
    assert writer.parts() == 1 and "d2" in writer.journal_path.read_text()
    assert counted(project) == {"d1": 1, "d3": 2}  # not refused as a line no part holds
    monkeypatch.undo()
    with Project.open(project.path).writer("alice") as again:  # folds the journal in
        assert again.current_grade("q1", "d2") is None
    assert counted(project) == {"d1": 1, "d3": 2}
    assert writer.journal_path.read_bytes() == b""


def test_a_reopened_writer_never_numbers_a_record_with_a_voided_seq(
    tmp_path, faults, monkeypatch
) -> None:
    project = make(tmp_path)
    writer = project.writer("alice")
    writer.record(J("d1", 1))
    faults.sync, faults.truncate = [True], [True]
    with pytest.raises(OSError):
        writer.record(J("d2", 3))  # seq 2, voided
    os.close(writer._journal._fd)  # the session dies: no compaction, the lock goes with it
    os.close(writer._journal._lock_fd)
    writer._journal._fd = writer._journal._lock_fd = None
    # The next session cannot empty the journal on opening (a failing disk), so the void stays
    # in it, and a record numbered 2 again would be voided by it.
    monkeypatch.setattr(Journal, "truncate", lambda self: (_ for _ in ()).throw(OSError("down")))
    with Project.open(project.path).writer("alice") as again:
        assert again.record(J("d3", 2)) == 3
    assert counted(project) == {"d1": 1, "d3": 2}


def test_old_journals_without_voids_read_as_before(tmp_path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text("".join(json.dumps({"seq": n}) + "\n" for n in (1, 2, 3)))
    text = read_journal(path)
    assert [r for _, r in text.records] == [{"seq": 1}, {"seq": 2}, {"seq": 3}]
    assert (text.top, text.voided) == (3, 0)


def test_a_void_names_only_the_lines_before_it(tmp_path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text(
        '{"seq":1}\n{"seq":2}\n{"seq":3}\n{"kind":"void","first":2,"last":3}\n{"seq":4}\n'
    )
    assert replay(path) == ([{"seq": 1}, {"seq": 4}], [])


@pytest.mark.parametrize(
    "void", ['{"kind":"void","first":3,"last":2}', '{"kind":"void","first":0,"last":1}',
             '{"kind":"void","first":"1","last":2}', '{"kind":"void"}'],
)  # fmt: skip
def test_a_damaged_void_is_refused_naming_its_line(tmp_path, void: str) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text('{"seq":1}\n' + void + '\n{"seq":5}\n')
    with pytest.raises(InputError) as info:
        replay(path)
    assert info.value.line == 2


def test_a_fragment_not_followed_by_a_void_is_still_damage(tmp_path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_bytes(b'{"seq":1}\n{"seq":2,"gr\n{"seq":3}\n')
    with pytest.raises(InputError) as info:
        replay(path)
    assert info.value.line == 2


def test_a_journal_without_numbers_cuts_the_failed_line_before_the_next_append(
    tmp_path, faults
) -> None:
    path = tmp_path / "answers.jsonl"
    with Journal(path) as journal:
        journal.append({"a": 1})
        faults.sync, faults.truncate = [True], [True]
        with pytest.raises(OSError):
            journal.append({"a": 2})
        faults.truncate = [True]  # still failing: nothing more is acknowledged meanwhile
        with pytest.raises(OSError):
            journal.append({"a": 3})
        journal.append({"a": 4})
    assert replay(path) == ([{"a": 1}, {"a": 4}], [])


def test_compact_every_keeps_working_after_a_void(tmp_path, faults, monkeypatch) -> None:
    monkeypatch.setattr(writer_module, "COMPACT_EVERY", 3)
    project = make(tmp_path)
    writer = project.writer("alice")
    for i in range(7):
        if i == 2:
            faults.sync, faults.truncate = [True], [True]
            with pytest.raises(OSError):
                writer.record(J(f"d{i}", 1))
            continue
        writer.record(J(f"d{i}", 2))
    writer.close()
    assert counted(project) == {f"d{i}": 2 for i in range(7) if i != 2}


def test_a_void_naming_a_record_followed_by_saved_ones_is_refused(tmp_path) -> None:
    # A failed append's lines are the last before its void (an owed void goes in front of the
    # next save): a void reaching further back is a hand edit that would drop a saved grade.
    path = tmp_path / "j.jsonl"
    path.write_text('{"seq":1}\n{"seq":2}\n{"seq":3}\n{"kind":"void","first":2,"last":2}\n')
    with pytest.raises(InputError) as info:
        replay(path)
    assert info.value.line == 4
