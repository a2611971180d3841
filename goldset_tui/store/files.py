"""Small durable-file helpers the store is built from: fsync, atomic replace, hashing, safe names.

Durability on POSIX needs three things, in this order: the data fsynced, the file renamed into
place (atomic), and the directory fsynced so the rename itself survives a power cut.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import re
import secrets
import tempfile
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

# fdatasync skips the inode's timestamps but still flushes what is needed to read the data back
# (the file size included), which is all an append needs; it is the cheaper call where it exists.
_datasync = getattr(os, "fdatasync", os.fsync)

_FULLFSYNC = getattr(fcntl, "F_FULLFSYNC", None)

TMP_PREFIX = ".tmp-"


_OS_ERROR_CODE = re.compile(r"os error (\d+)")


def naming(exc: OSError, path: str | Path) -> OSError:
    """The same OS error, naming ``path``: one raised on a file descriptor (a write, an fsync, a
    flock) names no file, and "No space left on device" alone does not say which disk."""
    if exc.filename is not None:  # a fresh copy, so that ``raise ... from exc`` chains sensibly
        return OSError(exc.errno, exc.strerror, exc.filename, None, exc.filename2)
    if exc.errno is None and _OS_ERROR_CODE.search(str(exc)):
        return os_error_from(
            exc, path
        )  # Polars' CSV writer: "No space left on device (os error 28)"
    return OSError(exc.errno, exc.strerror or str(exc), str(path))


def os_error_from(exc: BaseException, path: str | Path) -> OSError:
    """An OSError naming ``path`` for a failed write that a library reported in its own type.

    Polars' Parquet writer raises ``ComputeError("... (os error 28)")`` on a full disk, not an
    OSError, so callers that treat disk trouble as disk trouble would miss it; its CSV writer raises
    an OSError whose only text is ``"No space left on device (os error 28)"``, with no errno.
    """
    if isinstance(exc, OSError) and (exc.errno is not None or exc.filename is not None):
        return naming(exc, path)
    found = _OS_ERROR_CODE.search(str(exc))
    code = int(found.group(1)) if found else errno.EIO
    reason = os.strerror(code) if found else " ".join(str(exc).split())[:160]
    return OSError(code, reason, str(path))


def now_iso() -> str:
    """The current time as ISO 8601 in UTC with milliseconds, e.g. ``2026-11-30T10:47:00.123Z``:
    the one form of every time goldset writes (judgments, manifests, history, USERS.toml). Judgments
    written before it was the only form end in ``+00:00`` instead; ``datetime.fromisoformat`` and
    Polars' ``%#z`` read both, and both sort the same way."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def fsync_fd(fd: int) -> None:
    if _FULLFSYNC is not None:
        # macOS: fsync() stops at the drive's cache; F_FULLFSYNC reaches the platter/flash.
        fcntl.fcntl(fd, _FULLFSYNC)
    else:
        _datasync(fd)


def fsync_path(path: Path) -> None:
    """fsync a file by its path; on a folder, makes a rename or a new file in it durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError as exc:
        raise naming(exc, path) from exc
    finally:
        os.close(fd)


_umask: int | None = None
_umask_lock = threading.Lock()


def current_umask() -> int:
    """The process umask, read once: the only portable way to read it is to set it and put it back,
    and doing that more than once would race with other threads creating files meanwhile."""
    global _umask
    with _umask_lock:
        if _umask is None:
            _umask = os.umask(0)
            os.umask(_umask)
        return _umask


def shared_mode(path: str | Path) -> None:
    """Give a file made by mkstemp (always 0600) the mode ``open()`` would have given it (0666 less
    the umask), so teammates can read a shared store, labels, samples and manifests."""
    os.chmod(path, 0o666 & ~current_umask())


def atomic_write(path: Path, write: Callable[[Path], object]) -> None:
    """Write ``path`` through ``write(tmp_path)``, then fsync, rename over ``path``, fsync the folder.

    A crash at any moment leaves either the old file or the new one, never a half-written one
    (a stray ``.tmp-*`` file at worst, which readers ignore). The temporary file's name carries the
    writer's process id, so the next write of ``path`` removes what a killed writer left (a live
    one's is left alone). The file gets the umask's mode, like any file a Unix tool writes.

    An error means the file is as it was: when the folder's fsync after the rename fails (the
    rename may not survive a power cut), the rename is taken back (the old file, kept meanwhile as
    a hard link, is put back; a new file is removed) before the error is raised, so a caller that
    reports the failure is not contradicted by the file being there. Where hard links are refused
    (some network or FAT file systems) an overwritten file cannot be taken back and stays new.
    """
    path = Path(path)
    made = []  # the folders this write makes, deepest first: removed again if it fails
    for folder in path.parents:
        if folder.exists():
            break
        made.append(folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_dead_tmp(path)
    fd, tmp_name = tempfile.mkstemp(
        prefix=f"{TMP_PREFIX}{path.name}.{os.getpid()}.", dir=path.parent
    )
    os.close(fd)
    tmp = Path(tmp_name)
    old: Path | None = None
    try:
        write(tmp)
        shared_mode(tmp)  # after write(): a writer may replace tmp rather than fill it
        fsync_path(tmp)
        existed, old = keep_old(path)
        os.replace(tmp, path)
    except OSError as exc:
        _undo(tmp, made, old)
        raise naming(exc, path) from exc
    except BaseException as exc:
        _undo(tmp, made, old)
        if is_disk_error(exc):  # a library's own type for a failed write (Polars' ComputeError)
            raise os_error_from(exc, path) from exc
        raise
    try:
        fsync_path(path.parent)
    except OSError as exc:
        if _take_back(path, existed, old, made):
            raise naming(exc, path) from exc
        raise OSError(  # said as it is: the caller's change is there
            exc.errno,
            f"{exc.strerror or exc} (the new file IS in place, but its folder could not be "
            "synced to disk, nor the old file put back: a power cut could undo it)",
            str(path),
        ) from exc
    finally:
        if old is not None:
            with contextlib.suppress(OSError):
                os.unlink(old)


def keep_old(path: Path) -> tuple[bool, Path | None]:
    """Whether ``path`` exists, and a hard link to it (None when there is none or links are
    refused), named like a temporary file of ``path`` so that a kill leaves nothing for good."""
    if not os.path.lexists(path):
        return False, None
    old = path.with_name(f"{TMP_PREFIX}{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    try:
        os.link(path, old)
    except OSError:
        return True, None
    return True, old


def _take_back(path: Path, existed: bool, old: Path | None, made: list[Path]) -> bool:
    """Undo a rename whose folder fsync failed: the old file back, or the new one gone. False
    when the new file stays in place (no link to the old one, or the undoing failed too)."""
    try:
        if old is not None:
            os.replace(old, path)
        elif not existed:
            os.unlink(path)
            _undo(path, made)
        else:
            return False  # no link to the old file: nothing to put back
    except OSError:
        return False
    with contextlib.suppress(OSError):
        fsync_path(path.parent)  # the old state is what readers see either way
    return True


def remove_dead_tmp(path: Path) -> None:
    """Remove the temporary files of ``path`` whose writer is gone, ``.tmp-NAME.PID.XXXXXXXX``
    with PID no longer running: a writer killed before its rename, or after it and before the
    folder's fsync (the link kept to the old file). Best effort."""
    pattern = re.compile(rf"{re.escape(TMP_PREFIX + path.name)}\.(\d+)\.[a-z0-9_]{{8}}")
    try:
        names = os.listdir(path.parent)
    except OSError:
        return
    for name in names:
        found = pattern.fullmatch(name)
        if found and not pid_alive(int(found[1])):
            with contextlib.suppress(OSError):
                os.unlink(path.parent / name)


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine (someone else's counts as running)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: another user's live process
        return True
    return True


def _undo(tmp: Path, made: list[Path], old: Path | None = None) -> None:
    """After a failed write: nothing left behind, neither the temporary file nor the folders made
    for it (an empty ``machine/NAME/`` would otherwise outlive a failed import). Best effort: a
    folder someone filled meanwhile stays, and the error being raised is the one that matters."""
    try:
        tmp.unlink(missing_ok=True)
        if old is not None:  # the link kept to the old file: the old file is still in place
            old.unlink(missing_ok=True)
        for folder in made:  # deepest first
            folder.rmdir()
    except OSError:
        pass


def is_disk_error(exc: BaseException) -> bool:
    """Whether a library's exception is the operating system refusing a write ("... (os error 28)"
    is how Polars' Rust core reports a full disk): disk trouble, to be said in one line, not a bug."""
    return isinstance(exc, OSError) or (
        isinstance(exc, Exception) and _OS_ERROR_CODE.search(str(exc)) is not None
    )


def atomic_write_bytes(path: Path, data: bytes) -> None:
    atomic_write(path, lambda tmp: tmp.write_bytes(data))


def remove_stale_tmp(folder: Path) -> None:
    """Delete temporary files left by a crash in the middle of an atomic write."""
    if folder.is_dir():
        for stray in folder.glob(TMP_PREFIX + "*"):
            stray.unlink(missing_ok=True)


def sha256_file(path: str | Path) -> str:
    """Hex sha256 of a file's bytes, read in chunks so a large pool does not fill memory."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


# --- Safe names ---------------------------------------------------------------------------------
_UNSAFE_RUN = re.compile(r"[^a-z0-9]+")
_HASHED_TAIL = re.compile(r"-[0-9a-f]{10}$")
_PLAIN = re.compile(r"[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?")
# Names Windows refuses as files, whatever the extension; a store may be copied there.
_RESERVED = {
    "con",
    "prn",
    "aux",
    "nul",
    *(f"com{i}" for i in range(10)),
    *(f"lpt{i}" for i in range(10)),
}


def slug(text: str, *, limit: int = 40) -> str:
    """Lower-case ASCII letters and digits joined by ``-``: readable, not unique on its own."""
    return _UNSAFE_RUN.sub("-", text.lower()).strip("-")[:limit].strip("-")


def safe_name(labeller: str) -> str:
    """A file-name-safe, collision-free form of a labeller's name.

    A name that is already plain lower-case ASCII (``alice``, ``bob-2``) is kept as it is. Any other
    name becomes a readable slug plus 10 hex digits of the sha256 of the exact name
    (``Alice Smith`` -> ``alice-smith-1f0c...``), so names that differ only in case, accents or
    punctuation never share a file, even on case-insensitive file systems. A plain name that
    happens to end like a hash is hashed too, which keeps the mapping one-to-one. The manifest
    keeps the original name.
    """
    if not isinstance(labeller, str) or not labeller.strip():
        raise ValueError("a labeller name cannot be empty")
    if (
        _PLAIN.fullmatch(labeller)
        and not _HASHED_TAIL.search(labeller)
        and labeller not in _RESERVED
    ):
        return labeller
    digest = hashlib.sha256(labeller.encode("utf-8")).hexdigest()[:10]
    stem = slug(labeller) or "labeller"
    return f"{stem}-{digest}"
