"""An append-only JSON-lines journal: one record per line, durable before ``append`` returns.

Used for judgments, spot-check labels and adjudications: anything a screen shows as "saved".

Crash model. Each record is written with one ``write`` of the whole line and then fdatasynced, so
after a power cut or SIGKILL the file holds every acknowledged record, followed at worst by one
incomplete line (a record whose write was cut short; on some file systems a run of NUL bytes).
That last line was never acknowledged, so dropping it loses nothing the user was told was saved:
:func:`replay` drops it with a warning, and :class:`Journal` cuts it off before appending so it
cannot become a corrupt line in the middle. A bad line anywhere else is real corruption (or a hand
edit) and is reported as an :class:`InputError` naming the line, never skipped silently.

Locking. One writer per journal, enforced with ``flock`` on a sibling ``.lock`` file. The kernel
drops the lock when its holder dies, even on SIGKILL, so a crashed session never blocks the next
one. The lock file's text (pid, host, time) only serves the message shown to the refused process.
A busy check (:func:`is_locked`) holds a shared lock for an instant; a writer that meets only
shared holders tries again (:func:`take_exclusive`), so a check is never mistaken for a writer.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import socket
import time
from pathlib import Path
from typing import Any

from goldset_tui.errors import InputError, StoreLockedError
from goldset_tui.io.values import loads_json
from goldset_tui.store.files import fsync_fd, fsync_path, naming, now_iso

_TAIL_CHUNK = 1 << 16
_BUSY = (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES)
# How long a writer keeps trying while only busy checks hold the lock: each holds it for the time
# of one open and one close, so a second means something else (a check stopped mid-way).
CHECK_WAIT = 1.0


def lock_path_for(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def torn_path_for(path: Path) -> Path:
    # Dropped fragments are kept here rather than destroyed, for anyone investigating a crash.
    return path.with_name(path.name + ".torn")


def _parse(raw: bytes) -> dict[str, Any] | None:
    """The record on one line, or None when the line is not a JSON object."""
    try:
        value = loads_json(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def replay_numbered(path: str | Path) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
    """Like :func:`replay`, with each record's 1-based line number."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        return [], []
    except IsADirectoryError:
        raise InputError(p, "is a directory, expected a journal file") from None
    lines = data.split(b"\n")
    # The last non-blank line is the only one a crash can have cut short.
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    records: list[tuple[int, dict[str, Any]]] = []
    warnings: list[str] = []
    for i, raw in enumerate(lines):
        if not raw.strip():
            continue
        record = _parse(raw)
        if record is not None:
            records.append((i + 1, record))
        elif i == last:
            warnings.append(
                f"{p}:{i + 1}: dropped an incomplete last line ({len(raw)} bytes), left by a crash "
                "while it was being written; it had not been confirmed as saved"
            )
        else:
            raise InputError(
                p,
                "corrupt journal line (not a JSON object); the store needs repair by hand",
                line=i + 1,
            )
    return records, warnings


def replay(path: str | Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Every record in the journal, in order, and warnings (a dropped torn last line).

    A missing journal is an empty one. A corrupt line other than the last raises InputError.
    """
    numbered, warnings = replay_numbered(path)
    return [record for _, record in numbered], warnings


def is_locked(path: str | Path) -> bool:
    """Whether a live writer holds the journal's lock (in this process or another)."""
    lock_path = lock_path_for(Path(path))
    try:
        fd = os.open(lock_path, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # also drops the shared lock if we got it
    return False


def take_exclusive(fd: int, lock_path: Path) -> bool:
    """Take the writer lock on ``fd`` without waiting for a writer; False when a writer holds it.

    :func:`is_locked` takes a shared lock for an instant, and a writer locking at that instant
    would be refused as if another writer held the lock. So when the exclusive lock is refused, a
    shared one is tried: granted means that only busy checks hold the lock (writers never hold it
    shared), and the exclusive lock is tried again, for up to ``CHECK_WAIT`` seconds; refused
    means a writer holds it, and the answer is immediate.
    """
    deadline: float | None = None
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError as exc:
            if exc.errno not in _BUSY:
                raise naming(exc, lock_path) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in _BUSY:
                raise naming(exc, lock_path) from exc
            return False  # held exclusively: a writer
        fcntl.flock(fd, fcntl.LOCK_UN)
        now = time.monotonic()
        deadline = deadline if deadline is not None else now + CHECK_WAIT
        if now >= deadline:
            return False
        _pause()


def _pause() -> None:
    time.sleep(0.001)  # a busy check holds its shared lock for microseconds


def _holder_info(lock_path: Path) -> dict[str, str]:
    try:
        text = lock_path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        text = ""
    return dict(part.split("=", 1) for part in text.split() if "=" in part)


def holder_id(lock_path: Path) -> tuple[str, str] | None:
    """(pid, host) of the last process that took a lock, from its text; None if it says none."""
    info = _holder_info(lock_path)
    return (info["pid"], info.get("host", "")) if info.get("pid") else None


def holder(lock_path: Path) -> str:
    """Who holds a lock, from the text its holder wrote into the lock file (pid, host, since)."""
    info = _holder_info(lock_path)
    if not info.get("pid"):
        return "another process"
    who = f"process {info['pid']}"
    if info.get("host") and info["host"] != socket.gethostname():
        who += f" on {info['host']}"
    elif info["pid"] == str(os.getpid()):
        who = f"this same process ({info['pid']})"
    if info.get("since"):
        who += f", since {info['since']}"
    return who


def write_holder(fd: int) -> None:
    """Say who holds a lock just taken, for the message a refused process shows."""
    try:
        os.ftruncate(fd, 0)
        os.pwrite(
            fd, f"pid={os.getpid()} host={socket.gethostname()} since={now_iso()}\n".encode(), 0
        )
    except OSError:
        pass  # a full disk: the lock holds all the same; the refusal just cannot name the holder


class Journal:
    """Append records to ``path``, each durable on disk before :meth:`append` returns."""

    def __init__(self, path: str | Path, *, lock: bool = True):
        self.path = Path(path)
        self.warnings: list[str] = []
        self._fd: int | None = None
        self._lock_fd: int | None = None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if lock:
            self._acquire_lock()
        try:
            created = not self.path.exists()
            self._fd = os.open(
                self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666
            )  # the umask decides, as for any file
            if created:
                fsync_path(self.path.parent)
            self._cut_torn_tail()
        except OSError as exc:
            self.close()
            raise naming(exc, self.path) from exc
        except BaseException:
            self.close()
            raise

    # --- locking ----------------------------------------------------------------------------
    def _acquire_lock(self) -> None:
        lock_path = lock_path_for(self.path)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            taken = take_exclusive(fd, lock_path)
        except BaseException:
            os.close(fd)
            raise
        if not taken:
            os.close(fd)
            raise StoreLockedError(
                f"{self.path}: already open for writing by {holder(lock_path)}; "
                "close that session first (a crashed session does not hold the lock)"
            )
        self._lock_fd = fd
        write_holder(fd)

    # --- crash repair -----------------------------------------------------------------------
    def _cut_torn_tail(self) -> None:
        """Remove an unparseable last line (see the module docstring), keeping it in ``.torn``."""
        size = os.fstat(self._descriptor()).st_size
        if size == 0:
            return
        with open(self.path, "rb") as handle:
            # Find the start of the last non-blank line, reading backwards in chunks.
            end = size
            handle.seek(max(0, size - _TAIL_CHUNK))
            tail = handle.read()
            start_of_tail = max(0, size - _TAIL_CHUNK)
            while True:
                stripped = tail.rstrip(b"\n")
                cut = stripped.rfind(b"\n")
                if cut >= 0 or start_of_tail == 0:
                    break
                # The last line is longer than what we read: read more.
                start_of_tail = max(0, start_of_tail - _TAIL_CHUNK)
                handle.seek(start_of_tail)
                tail = handle.read(end - start_of_tail)
            line_start = start_of_tail + cut + 1
            last_line = stripped[cut + 1 :]
        if not last_line.strip():
            return
        if _parse(last_line) is not None:
            if not tail.endswith(b"\n"):
                # Complete record whose newline was lost: finish the line rather than drop it.
                self._write_all(b"\n")
                fsync_fd(self._descriptor())
            return
        torn = torn_path_for(self.path)
        try:
            with open(torn, "ab") as keep:
                keep.write(last_line + b"\n")
            kept = f"kept in {torn.name}"
        except OSError as exc:
            # A full disk must not stop the store from opening: the fragment was never
            # acknowledged, and left in place it would become a corrupt line in the middle.
            kept = f"could not be kept in {torn.name}: {exc.strerror or exc}"
        os.ftruncate(self._descriptor(), line_start)
        fsync_fd(self._descriptor())
        self.warnings.append(
            f"{self.path}: dropped an incomplete last line ({len(last_line)} bytes) left by a crash; "
            f"it had not been confirmed as saved ({kept})"
        )

    # --- writing ----------------------------------------------------------------------------
    def _descriptor(self) -> int:
        if self._fd is None:
            raise ValueError(f"{self.path}: journal is closed")
        return self._fd

    def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(self._descriptor(), view)
            view = view[written:]

    def append(self, record: dict[str, Any]) -> None:
        """Write ``record`` as one JSON line, then fdatasync: durable when this returns."""
        self.append_many([record])

    def append_many(self, records: list[dict[str, Any]]) -> None:
        """Write ``records`` as JSON lines with one ``write`` and one fdatasync: all of them are
        durable when this returns, or (on an error) none of them is left in the file.

        One fsync for a batch is what makes grading thousands of near-duplicates take seconds, not
        minutes. A crash during the write leaves complete lines of the batch plus at worst one torn
        line: those records were never acknowledged, so keeping them loses nothing and the torn
        tail is cut on the next open exactly as for a single record."""
        if self._fd is None:
            raise ValueError(f"{self.path}: journal is closed")
        if not records:
            return
        data = b"".join(
            json.dumps(r, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
            + b"\n"
            for r in records
        )
        size = os.fstat(self._fd).st_size
        try:
            self._write_all(data)
            fsync_fd(self._fd)
        except OSError as exc:
            # Disk full or an I/O error part-way: cut the partial line off, or the next record
            # would make it a corrupt line in the middle of the journal. Then report the failure.
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, size)
            raise naming(exc, self.path) from exc

    def truncate(self) -> None:
        """Empty the journal, durably (after its records were saved somewhere else)."""
        if self._fd is None:
            raise ValueError(f"{self.path}: journal is closed")
        try:
            os.ftruncate(self._fd, 0)
            fsync_fd(self._fd)
        except OSError as exc:
            raise naming(exc, self.path) from exc

    @property
    def closed(self) -> bool:
        return self._fd is None

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing the descriptor releases the flock
            self._lock_fd = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # a forgotten close must not leak the lock for the process's life
        # Not contextlib.suppress: at interpreter exit this module's globals may already be None.
        try:  # noqa: SIM105
            self.close()
        except Exception:
            pass
