"""Lock races that used to refuse a labeller with a wrong reason.

- Opening a store while another process finishes an interrupted merge: the opening waits for it
  (bounded) and then reads the merged store, instead of skipping the recovery, reading on and
  being refused as "already open for writing" by the recovering process; past the bound it
  refuses in one line naming the merge, and reads nothing.
- `goldset judge` while a merge runs in the store (it holds the labellers it writes): refused as
  a merge running, naming its process, not as "already open for writing" by it.
- A busy check (``is_locked``, `goldset serve`'s) holds a shared lock for an instant: a writer
  locking at that instant is not refused.

Synchronised with a pipe to a child process and with events; nothing sleeps to wait for the other
side.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pytest
from test_store_merge import HERE, env, events, judge, pool, store, t, tree_digest
from test_store_merge_recovery import leftover

import goldset_tui.store.journal as journal
import goldset_tui.store.staging as staging
from goldset_tui.cli import main
from goldset_tui.errors import StoreLockedError
from goldset_tui.store import Project
from goldset_tui.store.journal import Journal, is_locked, lock_path_for

WAIT = 60  # seconds an event may take on a loaded machine before the test gives up


@contextmanager
def stopped(*args: str) -> Iterator[subprocess.Popen]:
    """Another process working on a store (``gated_child.py ARGS``), stopped once it holds its
    locks, before it changes anything; a line on its stdin lets it go on."""
    child = subprocess.Popen(
        [sys.executable, str(HERE / "gated_child.py"), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "waiting\n", child.stderr.read()  # type: ignore[union-attr]
        yield child
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(WAIT)


def recovering(store: Path) -> AbstractContextManager[subprocess.Popen]:
    """Another process finishing the store's interrupted merge, holding the merge lock and the
    writer locks, stopped just before it applies the merge."""
    return stopped(str(store))


def go_on(child: subprocess.Popen) -> None:
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write("\n")
    child.stdin.flush()
    assert child.stdout.readline() == "done\n"


def test_opening_during_another_process_recovery_waits_and_reads_the_merged_store(
    tmp_path: Path, monkeypatch
) -> None:
    target, before, after = leftover(tmp_path, monkeypatch, committed=True)
    waiting = threading.Event()
    real_pause = getattr(
        staging, "_pause", lambda: None
    )  # getattr: the test fails, not errs, on old code

    def pause() -> None:
        waiting.set()  # the opening found the merge lock taken and is waiting for it
        real_pause()

    monkeypatch.setattr(staging, "_pause", pause, raising=False)
    said: list[str] = []

    @contextmanager
    def working(message: str) -> Iterator[None]:  # the spinner a terminal shows meanwhile
        said.append(message)
        yield

    monkeypatch.setattr(staging, "working", working, raising=False)
    monkeypatch.setattr(sys, "stderr", sys.__stderr__)  # as in a terminal, not a full-screen app
    outcome: dict[str, object] = {}

    def judge_opens() -> None:  # what `goldset judge` does: open the store, then the writer
        try:
            project = Project.open(target)
            with project.writer("alice"):
                outcome["events"] = sorted(events(project))
        except Exception as exc:  # reported by the assertions below
            outcome["error"] = exc
        finally:
            waiting.set()

    with recovering(target) as child:
        opener = threading.Thread(target=judge_opens)
        opener.start()
        assert waiting.wait(WAIT)
        assert "error" not in outcome, outcome["error"]  # was: already open for writing by N
        assert "events" not in outcome  # nothing read while the other process is mid-way
        go_on(child)
        opener.join(WAIT)
    assert "error" not in outcome, outcome["error"]
    assert outcome["events"] == after != before
    assert not (target / staging.STAGING).exists()
    assert len(said) == 1, said  # one message while waiting, naming the merge and its process
    assert said[0].startswith(f"waiting for a merge into {target} to finish (process {child.pid}")


def test_past_the_wait_the_opening_is_refused_in_one_line_naming_the_merge(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    target, _, after = leftover(tmp_path, monkeypatch, committed=True)
    monkeypatch.setattr(staging, "MERGE_WAIT", 0.0, raising=False)
    with recovering(target) as child:
        untouched = tree_digest(target)
        with pytest.raises(StoreLockedError) as refused:
            Project.open(target)  # was: no error, the store read half-way through the merge
        message = str(refused.value)
        assert "a merge into this store is running" in message
        assert f"process {child.pid}" in message and "already open" not in message
        capsys.readouterr()
        assert main(["qrels", "--store", str(target)]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
        assert f"process {child.pid}" in err
        assert tree_digest(target) == untouched
        go_on(child)
    assert sorted(events(Project.open(target))) == after


def test_a_labeller_opening_while_a_merge_holds_their_journal_is_told_it_is_a_merge(
    tmp_path: Path, capsys
) -> None:
    p = pool(tmp_path)
    a, b = store(tmp_path, "a", p), store(tmp_path, "b", p)
    judge(a, "alice", [("q1", "d1", 2, t(1))])
    judge(b, "alice", [("q1", "d2", 1, t(2))])
    with stopped("--merge", str(a.path), str(b.path)) as child:  # reading alice's histories
        with pytest.raises(StoreLockedError) as refused:
            Project.open(a.path).writer("alice")
        message = str(refused.value)
        assert f"a merge into this store is running (process {child.pid}" in message
        assert "already open for writing" not in message  # was: "... by process N"
        capsys.readouterr()
        assert main(["qrels", "--store", str(a.path)]) == 0  # reading is not refused
        go_on(child)
    with Project.open(a.path).writer("alice"):  # the merge over, alice judges again
        pass


def test_a_busy_check_at_the_instant_a_writer_locks_does_not_refuse_it(
    tmp_path: Path, monkeypatch
) -> None:
    path = tmp_path / "journal" / "alice.jsonl"
    path.parent.mkdir()
    # The busy check's instant, held: the shared lock is_locked takes, on its own open file (as in
    # the server's process; flock locks belong to open files, so this one conflicts all the same).
    check = os.open(lock_path_for(path), os.O_RDWR | os.O_CREAT, 0o666)
    fcntl.flock(check, fcntl.LOCK_SH | fcntl.LOCK_NB)
    retrying = threading.Event()
    real_pause = getattr(journal, "_pause", lambda: None)

    def pause() -> None:
        retrying.set()  # the writer met the check's lock and is trying again
        real_pause()

    monkeypatch.setattr(journal, "_pause", pause, raising=False)
    outcome: dict[str, object] = {}

    def writer_opens() -> None:
        try:
            outcome["journal"] = Journal(path)
        except Exception as exc:  # reported by the assertions below
            outcome["error"] = exc
        finally:
            retrying.set()

    opener = threading.Thread(target=writer_opens)
    try:
        opener.start()
        assert retrying.wait(WAIT)
        assert "error" not in outcome, outcome["error"]  # was: "already open for writing"
    finally:
        os.close(check)  # the check is over
        opener.join(WAIT)
    assert "error" not in outcome, outcome["error"]
    session = outcome["journal"]
    assert isinstance(session, Journal)
    try:
        assert is_locked(path)
    finally:
        session.close()
    assert not is_locked(path)


def test_a_second_writer_is_still_refused_at_once(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "journal" / "alice.jsonl"
    pauses: list[None] = []
    monkeypatch.setattr(journal, "_pause", lambda: pauses.append(None), raising=False)
    with Journal(path), pytest.raises(StoreLockedError) as refused:
        Journal(path)
    assert f"({os.getpid()})" in str(refused.value) and "already open for writing" in str(
        refused.value
    )
    assert pauses == []  # a writer's lock is told from a check's without trying again
