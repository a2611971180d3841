"""The store's ``manifest.toml``: read with tomllib (io.tomlfile), written with tomli-w, atomically.

Several processes may update it (two labellers registering at once, the agreement screen saving
its assignment), so every read-modify-write happens under an exclusive ``flock`` on
``.manifest.lock``, and re-reads the file inside the lock so nobody's update is lost.

A holder rewrites one small file, so the lock is never held for long by a live process; but a
stopped one (SIGSTOP, a suspended laptop job) holds it indefinitely. Waits are therefore bounded
(``LOCK_WAIT`` seconds) and then refused with the holder's pid, like a labeller's journal lock.
"""

from __future__ import annotations

import errno
import fcntl
import os
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import tomli_w

from goldset_tui.errors import InputError, StoreLockedError
from goldset_tui.io.tomlfile import parse_toml
from goldset_tui.model import GradeScale, guidelines_for
from goldset_tui.store.files import TMP_PREFIX, atomic_write_bytes, naming, sha256_file
from goldset_tui.store.journal import holder, holder_id, write_holder

MANIFEST = "manifest.toml"
LOCK = ".manifest.lock"
FORMAT = 1
LOCK_WAIT = 5.0  # seconds; a live holder needs milliseconds
_EXTENSION_KEYS = ("run", "from_sha256", "to_sha256")


def manifest_path(store: Path) -> Path:
    return Path(store) / MANIFEST


@contextmanager
def manifest_lock(store: Path) -> Iterator[None]:
    """Hold the manifest's lock; StoreLockedError after ``LOCK_WAIT`` seconds of waiting."""
    lock_path = Path(store) / LOCK
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise naming(exc, lock_path) from exc
            if time.monotonic() >= deadline:
                raise ManifestLockedError(held_too_long(lock_path))
            time.sleep(0.02)
        write_holder(fd)
        yield
    finally:
        os.close(fd)


class ManifestLockedError(StoreLockedError):
    """The manifest's lock was not released in time: no labeller's session is in the way, only
    the process that holds this lock (a caller must not say someone is judging)."""


def held_too_long(lock_path: Path) -> str:
    """What is known about the manifest lock's holder, and how to free the lock. A ``flock`` ends
    with its process, so a holder is alive; /proc tells whether it is stopped."""
    who = holder(lock_path)
    found = holder_id(lock_path)
    pid = found[0] if found and found[1] in ("", socket.gethostname()) else None
    state = _state(pid) if pid else None
    if state == "stopped":
        return (
            f"{lock_path}: the store's manifest lock is held by {who}, which is stopped "
            "(SIGSTOP or a suspended job): no other process can change this store's manifest "
            f"until it goes on. Resume it (`kill -CONT {pid}`) or end it (`kill {pid}`): the lock "
            "is freed when it ends"
        )
    if pid and state is None and Path("/proc/self").exists():
        # The name in the lock file is of a process that has ended: the one holding the lock now
        # could not write its own (a full disk), so who it is is not known.
        return (
            f"{lock_path}: the store's manifest lock was not released in {LOCK_WAIT:g} s; the "
            f"process it names ({pid}) has ended, so another holds it without a name (`fuser "
            f"{lock_path}` finds it); the lock is freed when that process ends"
        )
    what = f"`kill -CONT {pid}` if it is stopped, or end it: `kill {pid}`" if pid else "end it"
    return (
        f"{lock_path}: the store's manifest lock is held by {who} and was not released in "
        f"{LOCK_WAIT:g} s. Free it: {what} (the lock is freed when it ends)"
    )


def _state(pid: str) -> str | None:
    """ "stopped", "running" or None (no /proc, or no such process) for a process of this host."""
    try:
        stat = Path(f"/proc/{int(pid)}/stat").read_text(encoding="ascii", errors="replace")
    except (OSError, ValueError):
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    return "stopped" if fields and fields[0] in ("T", "t") else "running"


def check_manifest(data: dict[str, Any], path: Path) -> None:
    """The tables the store relies on are there and well formed."""
    if data.get("format") != FORMAT:
        raise InputError(
            path, f"unsupported store format {data.get('format')!r} (this goldset reads {FORMAT})"
        )
    pool = data.get("pool")
    if (
        not isinstance(pool, dict)
        or not isinstance(pool.get("path"), str)
        or not isinstance(pool.get("sha256"), str)
    ):
        raise InputError(path, "manifest lacks [pool] with path and sha256", column="pool")
    scale = data.get("scale")
    if not isinstance(scale, dict):
        raise InputError(path, "manifest lacks the [scale] table of grade labels", column="scale")
    try:
        GradeScale.from_toml(scale)
    except (ValueError, TypeError) as exc:
        raise InputError(path, f"bad grade scale: {exc}", column="scale") from None
    if not isinstance(data.get("guidelines", ""), str):
        raise InputError(path, "guidelines must be text", column="guidelines")
    labellers = data.get("labellers", {})
    if not isinstance(labellers, dict) or not all(
        isinstance(entry, dict) and isinstance(entry.get("name"), str)
        for entry in labellers.values()
    ):
        raise InputError(path, "every [labellers.*] table needs a name", column="labellers")
    check_history_tables(data, path)


def check_history_tables(data: dict[str, Any], path: Path) -> None:
    """The golden set's history tables (docs/history.md), when present: ``[[pool_extensions]]`` each
    with the run and both pools' sha256, ``[corpus]`` with its sha256, ``[version]`` a table,
    ``near_duplicate_threshold`` a number in [0, 1]. A hand edit that breaks them is one line."""
    extensions = data.get("pool_extensions", [])
    if not isinstance(extensions, list) or not all(
        isinstance(e, dict) and all(isinstance(e.get(k), str) for k in _EXTENSION_KEYS)
        for e in extensions
    ):
        raise InputError(
            path,
            f"every [[pool_extensions]] table needs {', '.join(_EXTENSION_KEYS)} (text)",
            column="pool_extensions",
        )
    corpus = data.get("corpus")
    if corpus is not None and not (
        isinstance(corpus, dict) and isinstance(corpus.get("sha256"), str)
    ):
        raise InputError(path, "[corpus] needs its sha256 (text)", column="corpus")
    if not isinstance(data.get("version", {}), dict):
        raise InputError(path, "version must be a table", column="version")
    threshold = data.get("near_duplicate_threshold", 0.0)
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, int | float)
        or not 0 <= threshold <= 1
    ):
        raise InputError(
            path,
            "near_duplicate_threshold must be a number from 0 to 1",
            column="near_duplicate_threshold",
        )


def read_manifest(store: Path) -> dict[str, Any]:
    path = manifest_path(store)
    if not Path(store).is_dir():
        raise InputError(
            store, "no such store folder" if not Path(store).exists() else "is not a folder"
        )
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(store, f"is not a goldset store (no {MANIFEST})") from None
    data = parse_toml(path, raw, what="manifest")
    check_manifest(data, path)
    return data


def write_manifest(store: Path, data: dict[str, Any]) -> None:
    check_manifest(data, manifest_path(store))
    atomic_write_bytes(
        manifest_path(store), tomli_w.dumps(data, multiline_strings=True).encode("utf-8")
    )


def update_manifest(store: Path, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Apply ``change`` to the manifest on disk, under the lock; return the new manifest."""
    with manifest_lock(store):
        # Every writer of the manifest holds this lock while its temporary file exists, so one
        # seen here was left by a writer that was killed: without this it stayed for good.
        for stray in Path(store).glob(f"{TMP_PREFIX}{MANIFEST}.*"):
            stray.unlink(missing_ok=True)
        data = read_manifest(store)
        change(data)
        write_manifest(store, data)
        return data


def corpus_table(corpus: str | Path) -> dict[str, str]:
    """The manifest's ``[corpus]``: the corpus file a store's ids-only pool takes its texts from,
    and its sha256 (part of the golden set's version, docs/history.md)."""
    return {"path": str(Path(corpus).expanduser().resolve()), "sha256": sha256_file(Path(corpus))}


def recorded_corpus(manifest: dict[str, Any]) -> str | None:
    """The corpus file the store records, for a command given no --corpus (None: none recorded,
    or no longer there: a pool with texts of its own does not need it, and an ids-only pool is
    then refused asking for --corpus)."""
    corpus = manifest.get("corpus")
    path = corpus.get("path") if isinstance(corpus, dict) else None
    return path if isinstance(path, str) and path and Path(path).is_file() else None


def remember_corpus(store: Path, manifest: dict[str, Any], corpus: str | Path) -> dict[str, Any]:
    """Record ``corpus`` as the store's (when it is not already the one recorded), so the next
    command on the store finds the texts without --corpus; returns the manifest."""
    table = corpus_table(corpus)
    if manifest.get("corpus") == table:
        return manifest  # nothing to write: a read-only store can still be judged as before

    def change(data: dict[str, Any]) -> None:
        data["corpus"] = table

    return update_manifest(store, change)


def new_store_fields(scale: GradeScale | None, corpus: str | Path | None) -> dict[str, Any]:
    """``Project.create``'s keywords for a store made by a command given ``--scale`` (None: 0-3)
    and ``--corpus``: the scale, guidelines that list its grades, and the corpus recorded."""
    scale = scale or GradeScale()
    return {
        "scale": scale,
        "guidelines": guidelines_for(scale),
        "corpus": corpus_table(corpus) if corpus is not None else None,
    }
