"""A release is recorded whole or not at all: `goldset report --store --release` with two systems
and two measures, made to fail (EIO) at each call that changes the disk, or killed (SIGKILL) just
before each, leaves the history holding all four records or none, says which in its message
(NOT recorded, or recorded whole with files left for the next run), and running the command
again leaves all four records, nothing else."""

from __future__ import annotations

import errno
import io
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import polars as pl
import pytest

from goldset_tui.cli import main
from goldset_tui.history.records import HISTORY_DIR, load_records
from goldset_tui.io.trec import read_qrels
from goldset_tui.store import Project, sha256_file

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"
CHILD = Path(__file__).with_name("kill_child.py")
FOLDER = SAMPLE / "releases" / "2026.1"
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
CHANGES = ("mkdir", "replace", "rename", "unlink", "fsync", "write", "ftruncate")
WHOLE = 4  # two systems x two measures


@pytest.fixture
def store(tmp_path: Path) -> Path:
    pool = SAMPLE / "pool.jsonl"
    store = tmp_path / "store"
    Project.create(store, pool_path=pool, pool_sha256=sha256_file(pool)).add_grades(
        "alice",
        read_qrels(SAMPLE / "judgments" / "alice.qrels").with_columns(
            pl.lit(None, pl.String).alias("time"), pl.lit(None, pl.String).alias("note")
        ),
    )
    return store


def report(store: Path) -> list[str]:
    return [
        "report", "--qrels", str(store), "--strata", str(SAMPLE / "strata.csv"),
        "--run", f"bm25={FOLDER / 'bm25.run'}", "--run", f"minilm={FOLDER / 'minilm.run'}",
        "--samples", "20", "-m", "nDCG@10", "-m", "P@10",
        "--store", str(store), "--release", "r1",
    ]  # fmt: skip


def leftovers(store: Path) -> list[str]:
    """What is in the history folder besides whole records."""
    folder = store / HISTORY_DIR
    return (
        sorted(p.name for p in folder.iterdir() if p.suffix != ".json") if folder.is_dir() else []
    )


@contextmanager
def failing_at(n: int, error: int = errno.EIO) -> Iterator[Callable[[], int]]:
    """The Nth call that changes the disk raises OSError(error) once; yields the count so far."""
    calls = 0

    def counting(original, changes=lambda *a, **k: True):
        def call(*a, **k):
            nonlocal calls
            if changes(*a, **k):
                calls += 1
                if calls - 1 == n:
                    raise OSError(error, os.strerror(error))
            return original(*a, **k)

        return call

    saved = {name: getattr(os, name) for name in (*CHANGES, "open")}
    saved_io = io.open
    try:
        for name in CHANGES:
            setattr(os, name, counting(saved[name]))
        os.open = counting(saved["open"], lambda _p, flags, *a, **k: bool(flags & WRITE_FLAGS))
        io.open = counting(saved_io, lambda _f, mode="r", *a, **k: bool(set("wax+") & set(mode)))
        yield lambda: calls
    finally:
        for name, original in saved.items():
            setattr(os, name, original)
        io.open = saved_io


def test_a_failure_at_every_write_leaves_the_whole_release_or_none(store: Path, capsys) -> None:
    with failing_at(-1) as count:
        assert main(report(store)) == 0
    calls = count()
    assert calls >= 10 and len(load_records(store)) == WHOLE
    capsys.readouterr()
    seen = set()
    for n in range(calls):
        shutil.rmtree(store / HISTORY_DIR)
        with failing_at(n):
            status = main(report(store))
        err = capsys.readouterr().err
        found = len(load_records(store))
        assert found in (0, WHOLE), (n, found, err)
        if status == 0:
            # The fault hit a write whose failure changes nothing (a lock's holder note).
            assert found == WHOLE, (n, err)
            continue
        last = err.strip().splitlines()[-1]
        assert "Traceback" not in err
        if found == 0:
            assert "release 'r1' was NOT recorded (nothing of it is in the history)" in last, n
        else:
            assert "release 'r1' IS recorded whole" in last, (n, last)
            assert "the next --release into this store writes them" in last
        seen.add(found)
        assert main(report(store)) == 0, n  # the same command again completes it
        capsys.readouterr()
        assert len(load_records(store)) == WHOLE and leftovers(store) == [], n
    assert seen == {0, WHOLE}  # the faults reach both sides of the commit point


def test_a_kill_at_every_write_leaves_the_whole_release_or_none(store: Path) -> None:
    def child(kill_at: int) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, str(CHILD), str(kill_at), "-", *report(store)]
        return subprocess.run(command, capture_output=True, text=True)

    counted = child(-1)
    assert counted.returncode == 0, counted.stderr
    calls = int(counted.stdout.strip().splitlines()[-1].removeprefix("calls: "))
    found = []
    for kill_at in range(calls):
        shutil.rmtree(store / HISTORY_DIR, ignore_errors=True)
        killed = child(kill_at)
        assert killed.returncode == -signal.SIGKILL, (kill_at, killed.stderr)
        records = load_records(store)
        assert len(records) in (0, WHOLE), (kill_at, [(r.system, r.measure) for r in records])
        found.append(len(records))
        if 0 < kill_at < calls - 1 and leftovers(store):
            again = child(-1)  # what a kill left, the next run finishes
            assert again.returncode == 0, again.stderr
            assert len(load_records(store)) == WHOLE and leftovers(store) == []
    assert found[0] == 0 and found[-1] == WHOLE
    print(f"{calls} kill points, none left part of a release")


def test_a_read_only_store_says_the_release_was_not_recorded(
    store: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    """As a read-only mount does (the tests may run as root, whom a file's mode does not stop):
    every write into the store refused with EROFS, while the report's own folder is writable."""
    real_open = os.open

    def read_only(path, flags, *a, **k):
        if flags & WRITE_FLAGS and str(store) in str(Path(path).absolute()):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_open(path, flags, *a, **k)

    monkeypatch.setattr(os, "open", read_only)
    out = tmp_path / "rep"
    assert main([*report(store), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert any(line.startswith("wrote ") for line in err)
    assert err[-1] == (
        f"goldset: error: {store / '.manifest.lock'}: Read-only file system: release 'r1' was "
        "NOT recorded (nothing of it is in the history); run the same command again once the "
        "store can be written"
    )
    assert load_records(store) == []


def test_eval_records_every_measure_of_a_release_or_none(store: Path, capsys) -> None:
    argv = [
        "eval", str(store), str(FOLDER / "bm25.run"), str(FOLDER / "minilm.run"),
        "-m", "nDCG@10", "-m", "P@10", "--store", str(store), "--release", "e1",
    ]  # fmt: skip
    with failing_at(-1) as count:
        assert main(argv) == 0
    calls = count()
    assert len(load_records(store)) == WHOLE
    for n in range(calls):
        shutil.rmtree(store / HISTORY_DIR, ignore_errors=True)
        capsys.readouterr()
        with failing_at(n):
            status = main(argv)
        err = capsys.readouterr().err
        found = len(load_records(store))
        assert found in (0, WHOLE), (n, found, err)
        assert "Traceback" not in err
        if status != 0 and found == 0:  # before the commit point, the scores' writes included
            last = err.strip().splitlines()[-1]
            assert "release 'e1' was NOT recorded (nothing of it is in the history)" in last, n
        assert status == 0 or found == 0 or "IS recorded whole" in err, (n, err)
        assert "was NOT recorded" not in err or found == 0


def test_eval_failing_at_its_scores_says_which_file_and_that_the_release_was_not_recorded(
    store: Path, capsys, monkeypatch
) -> None:
    """The per-query scores are written before any recording starts: a failure there names the
    scores file and says the release was not recorded, as a failure of the recording does."""
    real_open = os.open
    scores = store / "scores"

    def failing(path, flags, *a, **k):
        if flags & WRITE_FLAGS and str(scores) in str(Path(path).absolute()):
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real_open(path, flags, *a, **k)

    monkeypatch.setattr(os, "open", failing)
    argv = [
        "eval", str(store), str(FOLDER / "bm25.run"), "-m", "P@10",
        "--store", str(store), "--release", "e1",
    ]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        f"goldset: error: {scores / 'bm25.parquet'}: cannot write the scores: Input/output "
        "error: release 'e1' was NOT recorded (nothing of it is in the history); run the same "
        "command again once the scores can be written"
    )
    assert load_records(store) == []
    assert main(argv[:-4]) == 2  # without --release there is no release to speak of
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.endswith("bm25.parquet: cannot write the scores: Input/output error"), last


def test_a_manifest_lock_not_released_says_the_release_was_not_recorded(
    store: Path, capsys, monkeypatch
) -> None:
    import fcntl

    import goldset_tui.store.manifest as manifest

    monkeypatch.setattr(manifest, "LOCK_WAIT", 0.1)  # the same refusal, sooner
    fd = os.open(store / manifest.LOCK, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another holder (a separate open of the file)
        assert main(report(store)) == 2
    finally:
        os.close(fd)
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith(f"goldset: error: {store / manifest.LOCK}: the store's manifest lock")
    assert last.endswith("; release 'r1' was NOT recorded")
    assert load_records(store) == []
