"""Recovery of an interrupted merge (a leftover ``.merge-pending/`` finished or undone by the next
``Project.open``): it holds the writer locks of the labellers whose folders it swaps, refusing in
one line while one of them is judging; on a store that cannot be written it refuses in one line
(file, what is wrong, exit 2); either way nothing is changed."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import pytest
from test_store_merge import events, judge, pool, store, t, tree_digest

import goldset_tui.store.staging as staging
from goldset_tui.cli import main
from goldset_tui.errors import InputError, StoreLockedError
from goldset_tui.store import Project
from goldset_tui.store.journal import Journal
from goldset_tui.store.merge import merge_stores


class Crash(Exception):
    pass


def leftover(tmp_path: Path, monkeypatch, *, committed: bool) -> tuple[Path, list, list]:
    """A target store whose merge of another died after (or before) its commit point; with the
    events before, and those a finished merge gives (from a copy merged to the end)."""
    p = pool(tmp_path)
    a, b = store(tmp_path, "a", p), store(tmp_path, "b", p)
    judge(a, "alice", [("q1", "d1", 2, t(1))])
    judge(b, "alice", [("q1", "d2", 1, t(2))])
    judge(b, "bob", [("q1", "d1", 3, t(3))])
    before = sorted(events(a))
    shutil.copytree(a.path, tmp_path / "copy")
    merge_stores(tmp_path / "copy", [b.path])
    after = sorted(events(Project.open(tmp_path / "copy")))

    def die(*_args, **_kwargs):
        raise Crash

    with monkeypatch.context() as patch:
        patch.setattr(staging, "apply" if committed else "commit", die)
        with pytest.raises(Crash):
            merge_stores(a.path, [b.path])
    assert (a.path / staging.STAGING / staging.COMMIT).exists() is committed
    return a.path, before, after


def test_finishing_a_merge_waits_for_no_labeller_it_would_swap(tmp_path: Path, monkeypatch) -> None:
    target, before, after = leftover(tmp_path, monkeypatch, committed=True)
    untouched = tree_digest(target)
    # alice judges in the store (a session opened while the merge ran, before it died): her
    # journal's writer lock is held, as a judging screen holds it.
    session = Journal(target / "journal" / "alice.jsonl")
    try:
        with pytest.raises(StoreLockedError) as refused:
            Project.open(target)
        message = str(refused.value)
        assert "'alice'" in message and "judging" in message and "nothing was changed" in message
        assert len(message.splitlines()) == 1
        assert tree_digest(target) == untouched  # the leftover is still there, nothing swapped
        assert main(["qrels", "--store", str(target)]) == 2
    finally:
        session.close()
    # Once she has closed her session, the next open finishes the merge.
    assert sorted(events(Project.open(target))) == after != before
    assert not (target / staging.STAGING).exists()


def test_undoing_an_uncommitted_merge_needs_no_labeller_lock(tmp_path: Path, monkeypatch) -> None:
    target, before, _ = leftover(tmp_path, monkeypatch, committed=False)
    session = Journal(target / "journal" / "alice.jsonl")
    try:  # the staged files only are removed: the live store is not touched
        assert sorted(events(Project.open(target))) == before
    finally:
        session.close()
    assert not (target / staging.STAGING).exists()


def read_only(monkeypatch, root: Path) -> None:
    """Every write under ``root`` fails as on a read-only mount (EROFS)."""
    inside = str(root.resolve())

    def refuse(path: object) -> None:
        if str(Path(os.fsdecode(path)).resolve()).startswith(inside):  # type: ignore[arg-type]
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fsdecode(path))  # type: ignore[arg-type]

    real_open = os.open

    def open_(path, flags, *args, **kwargs):
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND):
            refuse(path)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_)
    for name in ("rename", "replace", "unlink", "rmdir", "mkdir"):
        real = getattr(os, name)

        def guarded(path, *args, _real=real, **kwargs):
            refuse(path)
            return _real(path, *args, **kwargs)

        monkeypatch.setattr(os, name, guarded)


@pytest.mark.parametrize("committed", [True, False])
def test_a_leftover_on_a_read_only_store_is_one_line_and_nothing_changes(
    tmp_path: Path, monkeypatch, capsys, committed: bool
) -> None:
    target, _, _ = leftover(tmp_path, monkeypatch, committed=committed)
    untouched = tree_digest(target)
    with monkeypatch.context() as patch:
        read_only(patch, target)
        with pytest.raises(InputError) as refused:  # was OSError, with a traceback
            Project.open(target)
        assert str(refused.value.path).startswith(str(target))
        assert "interrupted" in refused.value.message
        assert "Read-only file system" in refused.value.message
        assert "nothing was changed" in refused.value.message
        capsys.readouterr()
        assert main(["qrels", "--store", str(target)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith(f"goldset: error: {target}") and "Read-only file system" in err
    assert tree_digest(target) == untouched
