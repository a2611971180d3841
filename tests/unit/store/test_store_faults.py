"""Faults in the store: a full disk at any write, a failing Parquet writer, a stopped
lock holder, bad arguments, hand edits. Faults are injected by monkeypatching the functions that
write, and with real processes for the locks."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import polars as pl
import pytest

import goldset_tui.store.journal as journal_module
import goldset_tui.store.manifest as manifest_module
import goldset_tui.store.writer as writer_module
from goldset_tui.cli import main
from goldset_tui.errors import InputError, StoreLockedError
from goldset_tui.model import Judgment
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.files import atomic_write_bytes

CHILD = Path(__file__).with_name("store_child.py")
ROOT = Path(__file__).resolve().parents[3]
POOL = Path(__file__).parents[3] / "sample_data" / "pool.jsonl"


def child(project: Project, *args: str) -> subprocess.Popen[str]:
    env = dict(os.environ)  # the child imports goldset_tui from this checkout
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, str(CHILD), str(project.path), *args],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )


def make(tmp_path: Path) -> Project:
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1"}\n')
    return Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))


def J(q: str, d: str, grade: int, labeller: str = "alice") -> Judgment:
    return Judgment(labeller, q, d, grade, "2026-01-01T00:00:00Z")


def full_disk_parquet(monkeypatch: pytest.MonkeyPatch) -> None:
    """Polars' Parquet writer on a full disk: a ComputeError, not an OSError."""

    def refuse(self: pl.DataFrame, *args: object, **kwargs: object) -> None:
        raise pl.exceptions.ComputeError("failed to write: No space left on device (os error 28)")

    monkeypatch.setattr(pl.DataFrame, "write_parquet", refuse)


def grades(project: Project, labeller: str = "alice") -> dict[tuple[str, str], int]:
    return {(q, d): g for q, d, g in Project.open(project.path).qrels(labeller).iter_rows()}


# --- 1. a compaction failure never turns a durable save into an error ------------------------------
def test_a_compaction_failing_with_compute_error_still_saves(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(writer_module, "COMPACT_EVERY", 3)
    project = make(tmp_path)
    writer = project.writer("alice")
    full_disk_parquet(monkeypatch)
    seqs = [writer.record(J("q", f"d{i}", i % 4)) for i in range(7)]  # compactions at 3 and 6
    assert seqs == list(range(1, 8))  # each save returned once: no second record on a retry
    notice = writer.take_notice()
    assert notice and "No space left on device" in notice and str(writer.parts_dir) in notice
    assert writer.take_notice() is None  # reported once, not on every later save
    writer.close()  # closing cannot compact either: it must still release the lock, no error
    assert grades(project) == {("q", f"d{i}"): i % 4 for i in range(7)}
    assert len(writer.journal_path.read_text().splitlines()) == 7  # the journal is the truth
    monkeypatch.undo()
    with project.writer("alice"):  # the next session compacts what the full disk held back
        pass
    assert writer.journal_path.read_text() == ""
    assert Project.open(project.path).judgments("alice", history=True)["seq"].to_list() == seqs


# --- 2. opening with a leftover journal on a nearly full disk ------------------------------------
def crashed_session(project: Project) -> Path:
    """A session that saved three judgments and died before compacting (lock released)."""
    writer = project.writer("alice")
    for i in range(3):
        writer.record(J("q", f"d{i}", 2))
    writer._journal.close()  # as SIGKILL would: no compaction, the kernel drops the lock
    return writer.journal_path


def test_opening_on_a_full_disk_keeps_the_journal_and_writes(tmp_path, monkeypatch) -> None:
    project = make(tmp_path)
    journal = crashed_session(project)
    before = journal.read_bytes()
    full_disk_parquet(monkeypatch)
    with Project.open(project.path).writer("alice") as writer:  # read-write all the same
        assert journal.read_bytes() == before  # folding failed: nothing cut from the journal
        assert any("compaction failed" in w and "No space" in w for w in writer.warnings)
        writer.record(J("q", "d9", 1))
    assert grades(project) == {("q", "d0"): 2, ("q", "d1"): 2, ("q", "d2"): 2, ("q", "d9"): 1}
    monkeypatch.undo()
    with Project.open(project.path).writer("alice") as writer:
        assert writer.warnings == []
    assert journal.read_text() == ""
    assert grades(project)[("q", "d9")] == 1


def test_a_store_that_cannot_be_written_is_refused_in_one_line_naming_the_journal(
    tmp_path, monkeypatch, capsys
) -> None:
    project = make(tmp_path)
    journal = crashed_session(project)
    before = journal.read_bytes()
    real_open = os.open

    def read_only(path, flags, *args):
        if flags & (os.O_WRONLY | os.O_RDWR) and str(path).endswith(".jsonl"):
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(journal_module.os, "open", read_only)
    with pytest.raises(InputError) as caught:
        Project.open(project.path).writer("alice")
    assert str(caught.value.path) == str(journal) and "can be read" in caught.value.message
    assert journal.read_bytes() == before
    assert grades(project) == {("q", f"d{i}"): 2 for i in range(3)}  # still readable


# --- 3. a stopped process holding the manifest lock -----------------------------------------------
def test_a_stopped_manifest_lock_holder_is_named_after_a_bounded_wait(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.setattr(manifest_module, "LOCK_WAIT", 0.5)
    project = make(tmp_path)
    holder = child(project, "alice", "hold-manifest")
    outcome: list[BaseException | None] = []
    try:
        assert holder.stdout.readline().strip() == "locked"
        os.kill(holder.pid, signal.SIGSTOP)

        def open_writer() -> None:
            try:
                Project.open(project.path).writer("bob").close()
                outcome.append(None)
            except BaseException as exc:  # handed to the test thread
                outcome.append(exc)

        thread = threading.Thread(target=open_writer, daemon=True)
        thread.start()
        # A hang is caught by the suite's per-test timeout; the finally below still ends the holder.
        thread.join()
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    assert isinstance(outcome[0], StoreLockedError)
    assert f"process {holder.pid}" in str(outcome[0]) and ".manifest.lock" in str(outcome[0])
    with Project.open(project.path).writer("bob"):  # the killed holder blocks nothing
        pass


# --- 4. bad arguments write nothing ---------------------------------------------------------------
@pytest.mark.parametrize(
    "extra",
    [
        ["--repeat", "5"],
        ["--repeat", "nan"],
        ["--assign", "overlap=0.5"],
        ["--assign", "overlap=0.5", "--team", " , "],
        ["--assign", "overlap=7", "--team", "alice,bob"],
    ],
)
def test_bad_judge_arguments_create_no_store(tmp_path, capsys, extra: list[str]) -> None:
    store = tmp_path / "store"
    assert main(["judge", str(POOL), "--labeller", "alice", "--store", str(store), *extra]) == 2
    assert not store.exists()
    err = capsys.readouterr().err
    assert err.startswith("goldset: error: ") and err.count("\n") == 1


def test_a_folder_that_is_not_a_store_is_left_untouched(tmp_path, capsys) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "todo.txt").write_text("x")
    assert main(["judge", str(POOL), "--labeller", "alice", "--store", str(folder)]) == 2
    assert sorted(p.name for p in folder.iterdir()) == ["todo.txt"]
    assert "not a goldset store" in capsys.readouterr().err


# --- 5. hand edits are checked, not trusted -------------------------------------------------------
def edit_manifest(project: Project, old: str, new: str) -> None:
    path = project.path / "manifest.toml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def saved(project: Project, compact: bool) -> None:
    with project.writer("alice") as writer:
        writer.record(J("q1", "d1", 2))
        if not compact:
            writer._journal.close()  # leave it in the journal


def test_a_labeller_renamed_in_the_manifest_is_reported(tmp_path, capsys) -> None:
    project = make(tmp_path)
    saved(project, compact=True)
    edit_manifest(project, 'name = "alice"', 'name = "Alicia"')
    with pytest.raises(InputError) as caught:
        Project.open(project.path)
    assert caught.value.column == "labellers.alice" and "'Alicia'" in caught.value.message
    assert main(["qrels", "--store", str(project.path), "--labeller", "Alicia"]) == 2
    assert "manifest.toml" in capsys.readouterr().err


def test_a_labeller_table_deleted_from_the_manifest_is_reported(tmp_path) -> None:
    project = make(tmp_path)
    saved(project, compact=False)
    path = project.path / "manifest.toml"
    text = path.read_text()
    path.write_text(text[: text.index("[labellers.alice]")])
    with pytest.raises(InputError, match=r"journal/alice\.jsonl holds judgments"):
        Project.open(project.path)


def journal_with(project: Project, grade: object) -> Path:
    saved(project, compact=False)
    journal = project.path / "journal" / "alice.jsonl"
    record = json.loads(journal.read_text())
    journal.write_text(
        json.dumps(record | {"grade": 1})
        + "\n"
        + json.dumps(record | {"grade": grade, "seq": 2})
        + "\n"
    )
    return journal


@pytest.mark.parametrize("grade", [9, -1, 99999999999999999999999, None])
def test_a_journal_grade_outside_the_scale_is_refused_with_file_and_line(
    tmp_path, capsys, grade: int
) -> None:
    project = make(tmp_path)
    journal = journal_with(project, grade)
    with pytest.raises(InputError) as caught:
        Project.open(project.path).qrels("alice")
    assert (caught.value.path, caught.value.line, caught.value.column) == (journal, 2, "grade")
    assert main(["qrels", "--store", str(project.path)]) == 2
    assert capsys.readouterr().err.startswith(f"goldset: error: {journal}:2: ")
    with pytest.raises(InputError):  # nor is it folded into a part
        Project.open(project.path).writer("alice")
    assert not (project.path / "judgments" / "alice").exists()


def test_a_lone_surrogate_in_a_journal_is_refused_with_its_line(tmp_path) -> None:
    # Found by the fuzzer's soak: it was a UnicodeEncodeError traceback.
    project = make(tmp_path)
    saved(project, compact=False)
    journal = project.path / "journal" / "alice.jsonl"
    journal.write_text(journal.read_text().replace('"q1"', '"\\ud800"'))
    with pytest.raises(InputError) as caught:
        Project.open(project.path).judgments("alice")
    assert (caught.value.path, caught.value.line, caught.value.column) == (journal, 1, "query_id")


def rewrite_part(project: Project, change: pl.Expr) -> Path:
    saved(project, compact=True)
    (part,) = (project.path / "judgments" / "alice").glob("part-*.parquet")
    pl.read_parquet(part).with_columns(change).write_parquet(part)
    return part


@pytest.mark.parametrize(
    ("change", "column", "row"),
    [
        (pl.lit(9, pl.Int64).alias("grade"), "grade", 1),
        (pl.lit("2").alias("grade"), "grade", None),
        (pl.lit(["x"]).alias("seconds"), "seconds", None),
        (pl.lit("mallory").alias("labeller"), "labeller", 1),
        (pl.lit(None, pl.Int64).alias("grade"), "grade", 1),
        (pl.lit(None, pl.Int64).alias("seq"), "seq", 1),
        (pl.lit(2**64).alias("seq"), "seq", None),  # Int128, found by the fuzzer's soak
    ],
)
def test_a_bad_part_is_refused_naming_the_file(
    tmp_path, capsys, change: pl.Expr, column: str, row: int | None
) -> None:
    project = make(tmp_path)
    part = rewrite_part(project, change)
    with pytest.raises(InputError) as caught:
        Project.open(project.path).judgments("alice")
    assert (caught.value.path, caught.value.column, caught.value.row) == (part, column, row)
    assert main(["qrels", "--store", str(project.path)]) == 2
    assert capsys.readouterr().err.startswith(f"goldset: error: {part}: ")


# --- 6. every OS error names its path -------------------------------------------------------------
def test_a_full_disk_on_a_journal_append_names_the_journal(tmp_path, monkeypatch) -> None:
    project = make(tmp_path)

    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    with project.writer("alice") as writer:
        monkeypatch.setattr(journal_module.os, "write", full)
        with pytest.raises(OSError) as caught:
            writer.record(J("q", "d", 1))
        monkeypatch.undo()
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == str(writer.journal_path)
    assert str(writer.journal_path) in str(caught.value)


@pytest.mark.parametrize("step", ["write", "fsync"])
def test_a_full_disk_in_an_atomic_write_names_the_file(tmp_path, monkeypatch, step: str) -> None:
    import goldset_tui.store.files as files

    def full(*args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    if step == "write":
        monkeypatch.setattr(Path, "write_bytes", full)
    else:
        monkeypatch.setattr(files.os, "fsync", full)
    target = tmp_path / "out" / "labels.csv"
    with pytest.raises(OSError) as caught:
        atomic_write_bytes(target, b"x")
    assert caught.value.filename in (str(target), str(target.parent)) or (
        caught.value.filename or ""
    ).startswith(str(target.parent))
    # Nothing left behind: no temporary file, and not the folder made for it either.
    assert not target.parent.exists()


def test_a_full_disk_in_compaction_names_the_part(tmp_path, monkeypatch) -> None:
    project = make(tmp_path)
    writer = project.writer("alice")
    writer.record(J("q", "d", 1))
    full_disk_parquet(monkeypatch)
    with pytest.raises(OSError) as caught:
        writer.compact()
    assert caught.value.errno == errno.ENOSPC
    assert str(writer.parts_dir) in caught.value.filename
    monkeypatch.undo()
    writer.close()
