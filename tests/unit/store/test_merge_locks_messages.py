"""A merge locks only the labellers it writes, and what goldset says when something is in the way
is true: a session judging as ana does not stop a merge that writes only bob; one that writes ana
is refused naming ana's holder; a merge that fails after its commit point says it is committed and
completed on the next open; a stopped holder of the manifest's lock is named as that, with its
pid in the commands that free it, not as someone judging."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import goldset_tui.store.manifest as manifest
from goldset_tui.cli import main
from goldset_tui.errors import StoreLockedError
from goldset_tui.model import Judgment
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.journal import holder, lock_path_for
from goldset_tui.store.merge import merge_stores
from goldset_tui.store.staging import COMMIT, STAGING

HERE = Path(__file__).parent
ROOT = HERE.resolve().parents[2]
SAMPLE = ROOT / "sample_data"


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), e.get("PYTHONPATH")]))
    return e


def make(tmp_path: Path, name: str) -> Project:
    pool = tmp_path / "pool.jsonl"
    if not pool.exists():
        pool.write_text('{"query_id": "q1"}\n')
    return Project.create(tmp_path / name, pool_path=pool, pool_sha256=sha256_file(pool))


def judge(project: Project, labeller: str, doc: str, grade: int, minute: int) -> None:
    with project.writer(labeller) as w:
        when = f"2026-11-30T10:{minute:02d}:00.000Z"
        w.record(Judgment(labeller, "q1", doc, grade, when, seconds=1.0, position=0))


def hold(project: Project, labeller: str, mode: str = "hold") -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, str(HERE / "store_child.py"), str(project.path), labeller, mode],
        stdout=subprocess.PIPE,
        text=True,
        env=env(),
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "locked"
    return child


def test_a_session_judging_as_ana_does_not_stop_a_merge_writing_bob(tmp_path: Path) -> None:
    a, b = make(tmp_path, "a"), make(tmp_path, "b")
    judge(a, "ana", "d1", 1, 1)
    judge(b, "ana", "d1", 1, 1)  # the same event: nothing of ana's to add
    judge(b, "bob", "d2", 2, 2)
    session = hold(a, "ana")
    try:
        result = merge_stores(a.path, [b.path])
    finally:
        session.kill()
        session.wait()
    assert result.added == {"ana": 0, "bob": 1}
    assert sorted(Project.open(a.path).judgments().get_column("labeller")) == ["ana", "bob"]


def test_a_merge_writing_ana_is_refused_naming_her_holder(tmp_path: Path) -> None:
    a, b = make(tmp_path, "a"), make(tmp_path, "b")
    judge(a, "ana", "d1", 1, 1)
    judge(b, "ana", "d2", 2, 2)
    judge(b, "bob", "d2", 2, 2)
    session = hold(a, "ana")
    try:
        who = holder(lock_path_for(a.path / "journal" / "ana.jsonl"))
        with pytest.raises(StoreLockedError) as refused:
            merge_stores(a.path, [b.path])
    finally:
        session.kill()
        session.wait()
    assert str(refused.value) == (
        f"{a.path}: this merge writes the judgments of 'ana' ({who}), and that labeller is open "
        "for writing in this store right now (a judging session or an import); merge when it is "
        "closed (nothing was changed)"
    )
    assert Project.open(a.path).labellers() == ["ana"]  # nothing of bob's either


def test_a_merge_failing_after_its_commit_point_says_the_next_open_completes_it(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    a, b = make(tmp_path, "a"), make(tmp_path, "b")
    judge(a, "ana", "d1", 1, 1)
    judge(b, "ana", "d2", 2, 2)
    commit = a.path / STAGING / COMMIT
    real_rename = os.rename
    failed: list[str] = []

    def rename(src, dst, *args, **kwargs):
        if commit.exists() and not failed:  # the first rename of applying a committed merge
            failed.append(str(dst))
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(dst))
        return real_rename(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "rename", rename)
    capsys.readouterr()
    assert main(["merge", str(b.path), "--into", str(a.path)]) == 2
    err = capsys.readouterr().err
    assert failed and err == (
        f"goldset: error: {failed[0]}: Input/output error: the merge into {a.path} is committed, "
        "but finishing it stopped there; the next goldset command that opens the store completes "
        "it (nothing merged is lost)\n"
    )
    monkeypatch.undo()
    reopened = Project.open(a.path)  # completes it, as said
    assert sorted(reopened.judgments().get_column("doc_id")) == ["d1", "d2"]
    assert not (a.path / STAGING).exists()


def test_a_stopped_manifest_holder_is_named_as_that_not_as_someone_judging(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    labels = SAMPLE / "judgments" / "alice.qrels"
    pool = SAMPLE / "pool.jsonl"
    store = Project.create(tmp_path / "t", pool_path=pool, pool_sha256=sha256_file(pool))
    owner = hold(store, "-", "hold-manifest")
    try:
        os.kill(owner.pid, signal.SIGSTOP)
        stat = Path(f"/proc/{owner.pid}/stat")
        while stat.read_text().rsplit(")", 1)[-1].split()[0] not in ("T", "t"):
            pass  # the stop is delivered asynchronously: wait until the kernel says so
        monkeypatch.setattr(manifest, "LOCK_WAIT", 0.2)  # the same refusal, sooner
        who = holder(store.path / manifest.LOCK)
        capsys.readouterr()
        argv = ["import", "--store", str(store.path), "--labeller", "dave", "--human", str(labels)]
        assert main(argv) == 2
    finally:
        owner.kill()
        owner.wait()
    assert capsys.readouterr().err == (
        f"goldset: error: {store.path / manifest.LOCK}: the store's manifest lock is held by "
        f"{who}, which is stopped (SIGSTOP or a suspended job): no other process can change "
        f"this store's manifest until it goes on. Resume it (`kill -CONT {owner.pid}`) or end "
        f"it (`kill {owner.pid}`): the lock is freed when it ends\n"
    )
    assert "dave" not in Project.open(store.path).labellers()


def test_a_merge_failing_before_its_commit_point_says_nothing_was_merged(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    a, b = make(tmp_path, "a"), make(tmp_path, "b")
    judge(a, "ana", "d1", 1, 1)
    judge(b, "ana", "d2", 2, 2)
    real_replace = os.replace
    failed: list[str] = []

    def replace(src, dst, *args, **kwargs):
        if Path(dst).name == COMMIT and not failed:  # the commit point's own rename
            failed.append(str(dst))
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(dst))
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    capsys.readouterr()
    assert main(["merge", str(b.path), "--into", str(a.path)]) == 2
    assert failed and capsys.readouterr().err == (
        f"goldset: error: {failed[0]}: Input/output error: the merge failed before its commit "
        f"point; {a.path} is as it was (nothing merged)\n"
    )
    monkeypatch.undo()
    assert sorted(Project.open(a.path).judgments().get_column("doc_id")) == ["d1"]


def test_a_merge_into_a_new_folder_failing_at_its_commit_says_the_folder_was_not_made(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    b = make(tmp_path, "b")
    judge(b, "ana", "d2", 2, 2)
    new = tmp_path / "new"
    real_replace = os.replace
    failed: list[str] = []

    def replace(src, dst, *args, **kwargs):
        if Path(dst).name == COMMIT and not failed:
            failed.append(str(dst))
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(dst))
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    capsys.readouterr()
    assert main(["merge", str(b.path), "--into", str(new)]) == 2
    assert failed and capsys.readouterr().err == (
        f"goldset: error: {failed[0]}: Input/output error: the merge failed and {new} was not "
        "made (nothing changed)\n"
    )
    assert not new.exists() and not list(tmp_path.glob(".new.merging-*"))
