"""Open the input behind a path a user gave, literally, without importing Polars.

Every reader of runs and qrels starts here (``goldset_tui.io.trec``, the pure-Python reader of
small inputs, ``goldset eval``, ``goldset report``), so they all accept the same things:

- a regular file, read in place (gzipped or not: detected by its magic bytes, not its name);
- ``-``: standard input, read to its end once;
- a FIFO or character device (``<(zcat run.gz)``, ``/dev/stdin``): read to its end once. Opening
  a FIFO blocks until something writes to it; after about a second without a writer, one line
  on stderr says what goldset is waiting for, rather than hanging in silence.

Anything else (missing, a directory, a socket, empty) is an :class:`InputError` naming the path.
Polars is not imported: a small evaluation never pays for it.
"""

from __future__ import annotations

import errno
import gzip
import stat
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from goldset_tui.errors import InputError
from goldset_tui.text import visible

STDIN = "-"  # the path that means standard input, as for trec_eval 10 and most Unix tools
STDIN_NAME = "<stdin>"  # how standard input is named in messages
GZIP_MAGIC = b"\x1f\x8b"
# How long opening a FIFO may block before goldset says it is waiting for a writer.
WRITER_WAIT_NOTICE_SECONDS = 1.0

_NOT_REGULAR = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


@dataclass(frozen=True)
class Source:
    """What a reader parses: ``data`` is the path itself (a regular, uncompressed file, read in
    place) or the bytes (decompressed, or read from a stream); ``path`` names it in messages."""

    path: Path | str
    data: Path | bytes

    def size(self) -> int:
        """Bytes of data behind it (the file's size on disk for a file read in place)."""
        return len(self.data) if isinstance(self.data, bytes) else self.data.stat().st_size

    def read_bytes(self) -> bytes:
        return self.data if isinstance(self.data, bytes) else self.data.read_bytes()


def check_file(path: str | Path) -> Path:
    """A readable, non-empty regular file, or an InputError saying which of those it is not."""
    p = Path(path)
    try:
        info = p.stat()
    except FileNotFoundError:
        if p.is_symlink():
            raise InputError(p, "is a symbolic link to a file that does not exist") from None
        raise InputError(p, "no such file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(p, "is a loop of symbolic links (each points to the next)") from None
        raise InputError(p, exc.strerror or type(exc).__name__) from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(p, "is a directory, expected a file")
    for test, kind in _NOT_REGULAR:
        # A pipe's size is always 0: "file is empty" would be untrue. Reading it here would also
        # consume it, and these readers need a file they can read twice (data, then the error).
        if test(info.st_mode):
            raise InputError(p, f"is {kind}, not a regular file; save its contents to a file first")
    if info.st_size == 0:
        raise InputError(p, "file is empty")
    return p


def is_stream(path: str | Path) -> bool:
    """Whether ``path`` is read as a stream (``-``, a FIFO, a character device): once, to its end."""
    if str(path) == STDIN:
        return True
    try:
        mode = Path(path).stat().st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def open_source(path: str | Path) -> Source:
    """The input behind ``path``, read literally: ``-`` is standard input; a FIFO or character
    device (``<(zcat run.gz)``, ``/dev/stdin``) is read to its end once; a gzipped stream or file
    is decompressed. A missing, empty or directory path is an InputError."""
    if str(path) == STDIN:
        return _stream_source(STDIN_NAME, sys.stdin.buffer.read())
    p = Path(path)
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        raise InputError(p, "no such file") from None
    except OSError as exc:
        raise InputError(p, f"cannot be read: {exc.strerror or exc}") from None
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        # A pipe has no size (st_size is 0 even with data in it): read it, then judge.
        return _stream_source(p, _read_stream(p, fifo=stat.S_ISFIFO(mode)))
    p = check_file(p)
    with p.open("rb") as fh:
        magic = fh.read(2)
    if magic != GZIP_MAGIC:
        return Source(p, p)
    return Source(p, gunzip(p, p.read_bytes()))


def _read_stream(p: Path, *, fifo: bool) -> bytes:
    """Everything ``p`` gives. Opening a FIFO waits for a writer (a process substitution has
    one at once; `mkfifo` without one hangs): after a second, stderr says so."""
    notice = None
    if fifo:
        shown = visible(str(p), keep_newlines=False)
        notice = threading.Timer(
            WRITER_WAIT_NOTICE_SECONDS,
            lambda: print(
                f"goldset: waiting for a writer on {shown} (a named pipe: "
                "nothing has opened it for writing yet)",
                file=sys.stderr,
                flush=True,
            ),
        )
        notice.daemon = True
        notice.start()
    try:
        with p.open("rb") as fh:
            if notice is not None:
                notice.cancel()
            return fh.read()
    except OSError as exc:
        raise InputError(p, f"cannot be read: {exc.strerror or exc}") from None
    finally:
        if notice is not None:
            notice.cancel()


def _stream_source(name: Path | str, data: bytes) -> Source:
    if data[:2] == GZIP_MAGIC:
        data = gunzip(name, data)
    if not data.strip():
        raise InputError(name, "no data: the input is empty")
    return Source(name, data)


def gunzip(name: Path | str, data: bytes) -> bytes:
    try:
        return gzip.decompress(data)
    except (OSError, EOFError) as exc:
        raise InputError(name, f"looks gzipped but cannot be decompressed ({exc})") from None


def run_tag(src: Source) -> str | None:
    """The tag (sixth field) of the run's first record: trec_eval's ``runid``. None when that
    line has no sixth field (the reader will say why)."""
    if isinstance(src.data, bytes):
        return _first_tag(src.data.splitlines())
    with Path(src.data).open("rb") as fh:
        return _first_tag(fh)


def _first_tag(lines: Iterable[bytes]) -> str | None:
    for raw in lines:
        text = raw.strip()
        if text and not text.startswith(b"#"):
            fields = text.split()
            return fields[5].decode("utf-8", errors="replace") if len(fields) > 5 else None
    return None
