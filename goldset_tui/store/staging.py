"""The commit step of ``goldset merge``: a staged change that is applied whole, or not at all.

A merge changes several files of the target store (one folder of parts per labeller, machine
provenance files, the manifest), and no single rename can replace them all. So the merge writes
everything new into ``STORE/.merge-pending/`` first (every file fsynced), then writes
``COMMIT.json`` there atomically: that rename is the commit point. Applying is a list of steps
that can each be redone (the manifest change, then one folder rename per labeller, then the
machine files), so a crash anywhere is repaired the next time the store is opened:

- ``.merge-pending/`` without ``COMMIT.json``: the merge never committed; the folder is removed
  and the store is exactly as before.
- with ``COMMIT.json``: the steps are applied (again); the store is then fully merged.

Recovery runs in :meth:`Project.open` and before every merge, under ``.merge.lock`` (held by a
merge for its whole run), so a live merge is never "recovered" by another process. While another
process holds that lock (a merge, or another opening finishing one), a leftover means the store
may be changing under the reader: ``recover`` waits for the lock, up to ``MERGE_WAIT`` seconds
(saying so on a terminal), then finds the work done; past that it refuses in one line naming the
process, and nothing is read. Finishing a
committed merge also holds the writer lock of every labeller whose folder it swaps, as the merge
did: a labeller judging in the store meanwhile (a session opened while the merge ran, before it
died) makes recovery refuse in one line, and nothing is changed. A store that cannot be written (a
read-only mount) with a leftover is refused in one line too: it cannot be read before the merge is
finished or undone, and nothing is changed.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from goldset_tui.errors import InputError, StoreLockedError
from goldset_tui.progress import working
from goldset_tui.store.files import atomic_write_bytes, fsync_path, naming
from goldset_tui.store.journal import (
    holder,
    holder_id,
    lock_path_for,
    take_exclusive,
    write_holder,
)
from goldset_tui.store.manifest import update_manifest

STAGING = ".merge-pending"
COMMIT = "COMMIT.json"
MERGE_LOCK = ".merge.lock"
# How long opening a store waits for another process's merge (or its finishing of one) to end:
# merging two stores of a golden set takes seconds; a merge stopped for longer is reported.
MERGE_WAIT = 30.0


@contextmanager
def merge_lock(store: Path, *, wait: float = 0.0) -> Iterator[bool]:
    """Hold the store's merge lock, waiting up to ``wait`` seconds for another process to release
    it; yields False (without it) if it is still held then. A second merge into the same store is
    refused by the caller."""
    path = Path(store) / MERGE_LOCK
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as exc:
        raise naming(exc, path) from exc
    try:
        if not _take(fd, path) and not (wait > 0 and _wait_for(fd, path, store, wait)):
            yield False
            return
        write_holder(fd)
        yield True
    finally:
        os.close(fd)


def _take(fd: int, path: Path) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise naming(exc, path) from exc
        return False
    return True


def _wait_for(fd: int, path: Path, store: Path, wait: float) -> bool:
    deadline = time.monotonic() + wait
    message = f"waiting for a merge into {store} to finish ({holder(path)})"
    # Inside a full-screen app (the home screen opens stores) stderr is the app's capture, which
    # claims to be a terminal: a spinner there would fight the screen, so it waits silently.
    with working(message) if sys.stderr is sys.__stderr__ else nullcontext():
        while time.monotonic() < deadline:
            _pause()
            if _take(fd, path):
                return True
    return False


def _pause() -> None:
    time.sleep(0.02)


def merge_holder(store: Path) -> str:
    return holder(Path(store) / MERGE_LOCK)


def staging_dir(store: Path) -> Path:
    return Path(store) / STAGING


def discard(store: Path) -> None:
    """Remove an uncommitted staging folder (the caller holds the merge lock)."""
    staged = staging_dir(store)
    if staged.exists():
        shutil.rmtree(staged)
        fsync_path(Path(store))


def commit(store: Path, plan: dict[str, Any]) -> None:
    """The commit point: after this returns, the merge happens even if the process dies."""
    staged = staging_dir(store)
    for folder in sorted({p for p in staged.rglob("*") if p.is_dir()} | {staged}, reverse=True):
        fsync_path(folder)  # every staged file's name is durable before the commit names them
    atomic_write_bytes(staged / COMMIT, json.dumps(plan, sort_keys=True).encode("utf-8"))


def apply(store: Path) -> None:
    """Apply a committed merge; every step may already have been done by a run that died."""
    store = Path(store)
    staged = staging_dir(store)
    plan = json.loads((staged / COMMIT).read_text(encoding="utf-8"))
    entries: dict[str, dict[str, Any]] = plan["labellers"]
    record: dict[str, Any] | None = plan.get("record")

    def change(data: dict[str, Any]) -> None:
        data.setdefault("labellers", {}).update(entries)
        if record is not None:
            merges = data.setdefault("merges", [])
            if all(m.get("id") != record["id"] for m in merges):
                merges.append(record)

    update_manifest(store, change)  # first: files without a manifest table are refused on open
    judgments = store / "judgments"
    for safe in plan["swap"]:
        new = staged / "judgments" / safe
        if not new.exists():
            continue  # already moved in
        live = judgments / safe
        if live.exists():
            old = staged / "old" / safe
            old.parent.mkdir(parents=True, exist_ok=True)
            n = 0
            while old.exists():  # a name of its own; the old folder is only deleted at the end
                n += 1
                old = staged / "old" / f"{safe}.{n}"
            os.rename(live, old)
        judgments.mkdir(exist_ok=True)
        os.rename(new, live)
        fsync_path(judgments)
    for safe, name in plan["machine"]:
        new = staged / "machine" / safe / name
        live = store / "machine" / safe / name
        if new.exists() and not live.exists():
            live.parent.mkdir(parents=True, exist_ok=True)
            os.rename(new, live)
            fsync_path(live.parent)
    (staged / COMMIT).unlink()
    fsync_path(staged)
    discard(store)


def recover(store: Path, *, wait: float | None = None) -> None:
    """Finish or undo a merge that a crash interrupted; nothing to do in the usual case.

    With a leftover while another process holds the merge lock (a live merge, or another opening
    finishing this one), waits for it up to ``wait`` seconds (default ``MERGE_WAIT``), then
    StoreLockedError naming that process: the store is not to be read half-changed."""
    store = Path(store)
    staged = staging_dir(store)
    if not staged.exists():
        return
    applying = False  # whether the live files may have begun to change
    try:
        with merge_lock(store, wait=MERGE_WAIT if wait is None else wait) as held:
            if not held:
                raise StoreLockedError(
                    f"{store / MERGE_LOCK}: a merge into this store is running or being "
                    f"finished ({merge_holder(store)}) and has not ended; the store cannot be "
                    "read meanwhile: open it again when that process is done (nothing was changed)"
                )
            if not staged.exists():
                return  # the process that held the lock finished (or undid) the merge
            if not (staged / COMMIT).exists():
                discard(store)  # the staged files only: the store itself is as before
                return
            swap = json.loads((staged / COMMIT).read_text(encoding="utf-8"))["swap"]
            with _labellers_locked(store, swap):
                applying = True
                apply(store)
    except OSError as exc:
        committed = (staged / COMMIT).exists()
        raise InputError(
            exc.filename or staged,
            f"a merge into this store was interrupted, and {_what_now(committed)} failed here "
            f"({exc.strerror or exc}): the store cannot be read until it is; open it once where "
            "it can be written"
            + (" (the merge is committed: it will be completed)" if applying else "")
            + ("" if applying else " (nothing was changed)"),
        ) from None


def _what_now(committed: bool) -> str:
    return "finishing it (it was committed)" if committed else "undoing it (it was not committed)"


@contextmanager
def _labellers_locked(store: Path, safes: list[str]) -> Iterator[None]:
    """Hold the writer lock of each labeller folder a committed merge swaps; refused, naming who
    holds them, before anything changes."""
    held: list[int] = []
    busy: list[str] = []
    try:
        for safe in sorted(safes):
            lock = lock_path_for(store / "journal" / f"{safe}.jsonl")
            lock.parent.mkdir(parents=True, exist_ok=True)
            try:
                fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
            except OSError as exc:
                raise naming(exc, lock) from exc
            try:
                taken = take_exclusive(fd, lock)  # a busy check at this instant is no labeller
            except BaseException:
                os.close(fd)
                raise
            if not taken:
                os.close(fd)
                busy.append(f"{safe!r} ({holder(lock)})")
                continue
            held.append(fd)
        if busy:
            raise StoreLockedError(
                f"{store}: a merge into this store was interrupted and must be finished, but "
                f"{', '.join(busy)} {'is' if len(busy) == 1 else 'are'} judging in it right now; "
                "close that session, then open the store again (nothing was changed)"
            )
        for fd in held:
            write_holder(fd)
        yield
    finally:
        for fd in held:
            os.close(fd)


def refuse_if_merging(store: Path) -> None:
    """StoreLockedError when another process is merging into ``store``."""
    raise StoreLockedError(
        f"{Path(store) / MERGE_LOCK}: a merge into this store is running ({merge_holder(store)}); "
        "wait for it to finish"
    )


def naming_the_merge(store: Path, journal: Path, refused: StoreLockedError) -> StoreLockedError:
    """``refused`` (a labeller's journal is already open), told truly when the process holding
    that journal is the one that took the store's merge lock: a merge holds every labeller it
    writes while it reads their histories, and "already open for writing by process N" would send
    the labeller looking for a judging session that does not exist."""
    held_by = holder_id(lock_path_for(journal))
    if held_by is None or held_by != holder_id(Path(store) / MERGE_LOCK):
        return refused
    return StoreLockedError(
        f"{journal}: a merge into this store is running ({merge_holder(store)}) and holds this "
        "labeller's journal while it merges; open it again when the merge has finished"
    )


# --- A merge into a new store -------------------------------------------------------------------
# `merge --into NEWDIR` builds the whole store in a hidden folder beside NEWDIR, named after the
# building process, and renames it into place when complete. A failed run removes it; one killed
# leaves it, and the next merge into NEWDIR, or the next open of NEWDIR, removes every such folder
# whose process is gone (a live one is another merge still building).


def building_dir(store: Path) -> Path:
    """The hidden folder this process builds the new store ``store`` in."""
    return store.parent / f".{store.name}.merging-{os.getpid()}"


def sweep_new_store_leftovers(store: Path) -> None:
    """Remove the building folders beside ``store`` that killed merges left (best effort)."""
    prefix = f".{store.name}.merging-"
    try:
        found = [p for p in store.parent.iterdir() if p.name.startswith(prefix)]
    except OSError:
        return
    for leftover in found:
        pid = leftover.name.removeprefix(prefix)
        if pid.isdigit() and not _alive(int(pid)) and leftover.is_dir():
            shutil.rmtree(leftover, ignore_errors=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True  # this process's own: it removes it itself
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: someone else's live process
        return True
    return True
