"""The journal: replay, torn tails, corrupt lines, and the one-writer lock across processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from goldset_tui.errors import InputError, StoreLockedError
from goldset_tui.store.journal import Journal, replay, torn_path_for


def write_lines(path: Path, *records: dict) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def test_append_then_replay_round_trips_every_record(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    records = [{"seq": i, "text": f"é [bold] \x1b[31m {i}"} for i in range(1, 51)]
    with Journal(path) as journal:
        for record in records:
            journal.append(record)
    assert replay(path) == (records, [])
    # One line per record, parseable by any JSON reader.
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == records


def test_missing_journal_is_empty(tmp_path: Path) -> None:
    assert replay(tmp_path / "none.jsonl") == ([], [])


@pytest.mark.parametrize(
    "tail",
    [b'{"seq": 3, "gra', b"\x00\x00\x00\x00\x00\x00", b'{"seq": 3, "grade": 2, "note": "caf\xc3'],
    ids=["cut-json", "nul-bytes", "cut-utf8"],
)
def test_torn_last_line_is_dropped_with_a_warning(tmp_path: Path, tail: bytes) -> None:
    path = tmp_path / "j.jsonl"
    write_lines(path, {"seq": 1}, {"seq": 2})
    with open(path, "ab") as handle:
        handle.write(tail)
    records, warnings = replay(path)
    assert records == [{"seq": 1}, {"seq": 2}]
    assert len(warnings) == 1 and ":3:" in warnings[0] and "incomplete last line" in warnings[0]


def test_corrupt_line_in_the_middle_is_an_error_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_bytes(b'{"seq": 1}\n{"seq": 2}\n{"seq": 3, oops}\n{"seq": 4}\n')
    with pytest.raises(InputError) as info:
        replay(path)
    assert info.value.line == 3 and Path(info.value.path) == path


def test_a_json_value_that_is_not_an_object_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_bytes(b'{"seq": 1}\n[1, 2]\n{"seq": 3}\n')
    with pytest.raises(InputError) as info:
        replay(path)
    assert info.value.line == 2


def test_reopening_cuts_the_torn_tail_so_it_never_becomes_a_middle_line(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    write_lines(path, {"seq": 1})
    with open(path, "ab") as handle:
        handle.write(b'{"seq": 2, "gr')
    with Journal(path) as journal:
        assert len(journal.warnings) == 1
        journal.append({"seq": 2, "grade": 1})
    assert replay(path) == ([{"seq": 1}, {"seq": 2, "grade": 1}], [])
    assert torn_path_for(path).read_bytes() == b'{"seq": 2, "gr\n'  # kept for forensics


def test_a_complete_last_record_missing_its_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_bytes(b'{"seq": 1}\n{"seq": 2}')
    assert replay(path) == ([{"seq": 1}, {"seq": 2}], [])
    with Journal(path) as journal:
        assert journal.warnings == []
        journal.append({"seq": 3})
    assert replay(path)[0] == [{"seq": 1}, {"seq": 2}, {"seq": 3}]


def test_torn_tail_longer_than_one_read_chunk(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    write_lines(path, {"seq": 1})
    with open(path, "ab") as handle:
        handle.write(b'{"note": "' + b"x" * 200_000)
    with Journal(path) as journal:
        journal.append({"seq": 2})
    assert replay(path) == ([{"seq": 1}, {"seq": 2}], [])


def test_nan_is_refused_rather_than_written_as_invalid_json(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.jsonl") as journal, pytest.raises(ValueError):
        journal.append({"seconds": float("nan")})


def test_second_writer_in_the_same_process_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    with Journal(path), pytest.raises(StoreLockedError, match="same process"):
        Journal(path)
    Journal(path).close()  # released on close


HOLDER = textwrap.dedent(
    """
    import sys, time
    from goldset_tui.store.journal import Journal
    j = Journal(sys.argv[1])
    print("locked", flush=True)
    time.sleep(600)
    """
)


def start_holder(path: Path) -> subprocess.Popen:
    root = Path(__file__).resolve().parents[3]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])),
    }
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout.readline().strip() == "locked"
    return proc


def test_second_process_is_refused_with_the_holders_pid(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    holder = start_holder(path)
    try:
        with pytest.raises(StoreLockedError) as info:
            Journal(path)
        assert f"process {holder.pid}" in str(info.value)
    finally:
        holder.kill()
        holder.wait()


def test_lock_of_a_sigkilled_process_does_not_block(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    holder = start_holder(path)
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    assert (tmp_path / "j.jsonl.lock").exists()  # the stale file is still there ...
    with Journal(path) as journal:  # ... and does not matter
        journal.append({"seq": 1})
    assert replay(path)[0] == [{"seq": 1}]


def test_lock_false_skips_locking(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    with Journal(path), Journal(path, lock=False) as second:
        second.append({"seq": 1})


def test_a_failed_write_leaves_no_partial_line(tmp_path: Path, monkeypatch) -> None:
    import errno

    import goldset_tui.store.journal as journal_module

    path = tmp_path / "j.jsonl"
    real_write = os.write
    with Journal(path) as journal:
        journal.append({"seq": 1})

        def half_then_full(fd, data):
            real_write(fd, bytes(data[: len(data) // 2]))
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(journal_module.os, "write", half_then_full)
        with pytest.raises(OSError):
            journal.append({"seq": 2, "text": "x" * 100})
        monkeypatch.setattr(journal_module.os, "write", real_write)
        journal.append({"seq": 3})
    assert replay(path) == ([{"seq": 1}, {"seq": 3}], [])


def test_append_many_is_one_write_and_one_fsync(tmp_path: Path, monkeypatch) -> None:
    import goldset_tui.store.journal as journal_module

    syncs: list[int] = []
    real_fsync = journal_module.fsync_fd
    monkeypatch.setattr(journal_module, "fsync_fd", lambda fd: (syncs.append(fd), real_fsync(fd)))
    path = tmp_path / "j.jsonl"
    records = [{"seq": i, "text": f"line {i} [bold]"} for i in range(1, 501)]
    with Journal(path) as journal:
        syncs.clear()  # opening may sync the folder
        journal.append_many(records)
        assert len(syncs) == 1
        journal.append_many([])  # nothing to write: no fsync either
        assert len(syncs) == 1
    assert replay(path) == (records, [])


def test_a_failed_batch_leaves_none_of_its_lines(tmp_path: Path, monkeypatch) -> None:
    import errno

    import goldset_tui.store.journal as journal_module

    path = tmp_path / "j.jsonl"
    real_write = os.write
    with Journal(path) as journal:
        journal.append({"seq": 1})

        def most_then_full(fd, data):
            real_write(fd, bytes(data[: len(data) * 3 // 4]))  # whole lines and a torn one
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(journal_module.os, "write", most_then_full)
        with pytest.raises(OSError):
            journal.append_many([{"seq": n} for n in range(2, 40)])
        monkeypatch.setattr(journal_module.os, "write", real_write)
        journal.append({"seq": 40})
    assert replay(path) == ([{"seq": 1}, {"seq": 40}], [])
