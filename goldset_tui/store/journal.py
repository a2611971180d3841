"""An append-only JSON-lines journal: one record per line, durable before ``append`` returns.

Used for judgments, spot-check labels and adjudications: anything a screen shows as "saved".

Crash model. Each record is written with one ``write`` of the whole line and then fdatasynced, so
after a power cut or SIGKILL the file holds every acknowledged record, followed at worst by one
incomplete line (a record whose write was cut short; on some file systems a run of NUL bytes).
That last line was never acknowledged, so dropping it loses nothing the user was told was saved:
:func:`replay` drops it with a warning, and :class:`Journal` cuts it off before appending so it
cannot become a corrupt line in the middle. A bad line anywhere else is real corruption (or a hand
edit) and is reported as an :class:`InputError` naming the line, never skipped silently.

A failed append. When the write or its fdatasync fails, the lines written so far are cut off
again (``ftruncate``, then fdatasync, so the cut survives a power cut too). When that cut fails as
well, the failed lines may still be on disk, and after a crash a reader could not tell them from
acknowledged ones. A journal whose records carry a sequence number (``void_key``) then appends a
*void* record, ``{"kind":"void","first":A,"last":B}``: the records numbered A..B written before it
were reported as not saved, and every reader drops them (:func:`read_journal`). The void line is
written at once, and if that fails too it goes in front of the next append, in the same write and
fdatasync, so no later record is acknowledged before the failure is on disk. A void only ever names
records that were never acknowledged, so one that survives without having been acknowledged itself
is harmless; its writer never numbers a later record A..B again. The failed lines may end in a
fragment of a line: unparseable lines just before a void record are that fragment, not damage.
A journal without sequence numbers cannot name its failed lines: there the cut is retried before
the next append, and that append is refused while the cut fails.

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
from dataclasses import dataclass
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


VOID_KIND = "void"


@dataclass
class JournalText:
    """What :func:`read_journal` found: the records in force (with their 1-based line numbers),
    warnings, and the highest sequence number any line names (voided records and voids too)."""

    records: list[tuple[int, dict[str, Any]]]
    warnings: list[str]
    top: int = 0
    voided: int = 0  # records a void record dropped


def _void_range(record: dict[str, Any], path: Path, line: int) -> tuple[int, int]:
    first, last = record.get("first"), record.get("last")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (first, last)) or not (
        1 <= first <= last  # type: ignore[operator]
    ):
        raise InputError(
            path,
            f"corrupt void record (first {first!r}, last {last!r}: two sequence numbers, "
            "1 <= first <= last); the store needs repair by hand",
            line=line,
        )
    return first, last  # type: ignore[return-value]


def _seq_of(record: dict[str, Any]) -> int | None:
    seq = record.get("seq")
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else None


def _parse(raw: bytes) -> dict[str, Any] | None:
    """The record on one line, or None when the line is not a JSON object."""
    try:
        value = loads_json(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def read_journal(path: str | Path) -> JournalText:
    """Every record in force in the journal, in order, with warnings (a dropped torn last line).

    Void records (see the module docstring) and the records they void are left out; so are the
    unparseable lines just before a void (a failed write's fragment). A missing journal is an
    empty one. Any other corrupt line but the last raises InputError naming it.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        return JournalText([], [])
    except IsADirectoryError:
        raise InputError(p, "is a directory, expected a journal file") from None
    lines = data.split(b"\n")
    # The last non-blank line is the only one a crash can have cut short.
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    records: list[tuple[int, dict[str, Any]]] = []
    warnings: list[str] = []
    fragments: list[int] = []  # unparseable lines not yet explained by a void after them
    top = voided = 0
    for i, raw in enumerate(lines):
        if not raw.strip():
            continue
        record = _parse(raw)
        if record is not None and record.get("kind") == VOID_KIND:
            first, end = _void_range(record, p, i + 1)
            top = max(top, end)
            kept = [(n, r) for n, r in records if not first <= (_seq_of(r) or 0) <= end]
            if records[: len(kept)] != kept:
                # The failed lines a void names are the last ones before it; one naming a record
                # followed by others was saved, and dropping it would change a grade unseen.
                raise InputError(
                    p,
                    f"corrupt void record (it names seqs {first}-{end}, and a record among them is "
                    "followed by other saved records: an edit by hand?); the store needs repair "
                    "by hand",
                    line=i + 1,
                )
            voided += len(records) - len(kept)
            records, fragments = kept, []
        elif record is not None:
            if fragments:
                break  # reported below: a corrupt line in the middle
            records.append((i + 1, record))
            top = max(top, _seq_of(record) or 0)
        elif i == last and not fragments:
            warnings.append(
                f"{p}:{i + 1}: dropped an incomplete last line ({len(raw)} bytes), left by a crash "
                "while it was being written; it had not been confirmed as saved"
            )
        else:
            fragments.append(i + 1)
    if fragments:
        raise InputError(
            p,
            "corrupt journal line (not a JSON object); the store needs repair by hand",
            line=fragments[0],
        )
    return JournalText(records, warnings, top, voided)


def replay_numbered(path: str | Path) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
    """Like :func:`replay`, with each record's 1-based line number."""
    text = read_journal(path)
    return text.records, text.warnings


def replay(path: str | Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Every record in the journal, in order, and warnings (a dropped torn last line).

    A missing journal is an empty one. A corrupt line other than the last raises InputError;
    void records and what they void are left out (:func:`read_journal`).
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
    """Append records to ``path``, each durable on disk before :meth:`append` returns.

    ``void_key`` names the records' sequence number (``"seq"``): a failed append whose lines
    cannot be cut off again is then voided by number (see the module docstring). Its caller
    never gives a number twice, even to records whose append failed."""

    def __init__(self, path: str | Path, *, lock: bool = True, void_key: str | None = None):
        self.path = Path(path)
        self.warnings: list[str] = []
        self._fd: int | None = None
        self._lock_fd: int | None = None
        self._void_key = void_key
        self._owed: list[bytes] = []  # void lines not yet durable
        self._cut_to: int | None = None  # without void_key: failed lines still to cut off
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
        if self._cut_to is not None:
            self._cut_back()
        size = os.fstat(self._fd).st_size
        owed = b"\n" + b"".join(self._owed) if self._owed else b""
        try:
            self._write_all(owed + data)
            fsync_fd(self._fd)
        except OSError as exc:
            self._failed(size, records)
            raise naming(exc, self.path) from exc
        self._owed = []

    def _failed(self, size: int, records: list[dict[str, Any]]) -> None:
        """After a failed append: cut its lines off durably, or else void them (module docstring).

        Disk full or an I/O error part-way: a partial line left in place would make the next
        record a corrupt line in the middle, and a complete one would count a record the caller
        was told was not saved."""
        fd = self._descriptor()
        try:
            os.ftruncate(fd, size)
            fsync_fd(fd)
            return  # gone for good; voids owed from before stay owed
        except OSError:
            pass
        seqs = [_seq_of(r) for r in records] if self._void_key else []
        if not seqs or None in seqs:
            self._cut_to = size
            return
        void = {"kind": VOID_KIND, "first": min(seqs), "last": max(seqs)}  # type: ignore[type-var]
        self._owed.append(json.dumps(void, separators=(",", ":")).encode() + b"\n")
        with contextlib.suppress(OSError):
            self._pay_owed()

    def _pay_owed(self) -> None:
        """Write the owed void lines and fdatasync them (raises OSError when that fails)."""
        if self._owed:
            # The newline ends a fragment the failed write may have left, as a line of its own.
            self._write_all(b"\n" + b"".join(self._owed))
            fsync_fd(self._descriptor())
            self._owed = []

    def _cut_back(self) -> None:
        """Cut off the lines of a failed append (a journal without numbers), or raise."""
        fd = self._descriptor()
        try:
            os.ftruncate(fd, self._cut_to or 0)
            fsync_fd(fd)
        except OSError as exc:
            raise naming(exc, self.path) from exc
        self._cut_to = None

    def truncate(self) -> None:
        """Empty the journal, durably (after its records were saved somewhere else)."""
        if self._fd is None:
            raise ValueError(f"{self.path}: journal is closed")
        try:
            os.ftruncate(self._fd, 0)
            fsync_fd(self._fd)
        except OSError as exc:
            raise naming(exc, self.path) from exc
        self._owed, self._cut_to = [], None  # the failed lines went with the rest

    @property
    def closed(self) -> bool:
        return self._fd is None

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):  # a last try: the void owed to a failed append
                self._pay_owed()
                if self._cut_to is not None:
                    self._cut_back()
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
