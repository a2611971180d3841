"""An I/O fault injector in the manner of SQLite's I/O-error tests: count the calls that change the
disk over a scripted workload, then for every N run the workload again with the Nth call failing
once (EIO or ENOSPC), or with the process SIGKILLed just before it.

The wrapped calls are the ones through which goldset changes a disk: ``os.write``, ``os.fsync``,
``os.fdatasync`` (also as ``goldset_tui.store.files._datasync``, which holds it from import time),
``os.replace``, ``os.rename``, ``os.open`` and ``open`` for writing, ``os.ftruncate``, ``os.mkdir``,
and Polars' writers (``DataFrame.write_parquet``/``write_csv``/``write_ndjson``, ``LazyFrame``'s
``sink_*``). Opening a file for reading is not counted: it changes nothing.

How each fault looks is how the real one looks to goldset:

- EIO: the call raises ``OSError(EIO)`` without doing anything (with the path, for calls on one).
- ENOSPC: the same, except that ``os.write`` first writes half its bytes (a full disk part-way
  through a write, the case that leaves a partial line or file behind).
- Polars' writers: the target file is created holding a few bytes, then the error Polars raises
  itself on a full disk: a ``ComputeError`` ending in ``(os error N)`` for Parquet and the sinks, an
  errno-less ``OSError`` with the same text for CSV and NDJSON (``/dev/full`` shows these shapes,
  tests/unit/store/test_disk_full_writers.py).
- EIO*: a persistent EIO: call N and every call after it fail, until :meth:`Injector.heal` (the
  sweep heals at the end of the operation the fault hit, so the next one meets a working disk).
  This is the fault under which a failed write's clean-up fails too.
- KILL: ``SIGKILL`` to the process itself just before the call: nothing after it happens, as in a
  power cut that keeps what the page cache had (a kill is the strongest fault a test can give
  without a virtual machine).

Counting is deterministic: nothing but the workload runs while the injector is installed (no
timers, no threads of its own), so the same N names the same call on every run, and a fault that
misses is seen (:attr:`Injector.fired` stays None).
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import io
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import polars as pl

import goldset_tui.store.files as files_module

FAULTS = ("EIO", "ENOSPC", "EIO*")
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
WRITE_MODES = set("wax+")
OS_CALLS = ("write", "fsync", "fdatasync", "replace", "rename", "ftruncate", "mkdir")
POLARS_WRITERS: tuple[tuple[type, str], ...] = (
    (pl.DataFrame, "write_parquet"),
    (pl.DataFrame, "write_csv"),
    (pl.DataFrame, "write_ndjson"),
    (pl.LazyFrame, "sink_parquet"),
    (pl.LazyFrame, "sink_csv"),
    (pl.LazyFrame, "sink_ndjson"),
)
_PATH_CALLS = {"replace", "rename", "mkdir", "open"}


class Injector:
    """Counts disk-changing calls; with ``fault`` set, makes call number ``at`` (0-based) fail once
    (``"EIO"``, ``"ENOSPC"``) or kills the process there (``"KILL"``)."""

    def __init__(self, fault: str | None = None, at: int = -1, say: TextIO | None = None) -> None:
        if fault not in (None, "KILL", *FAULTS):
            raise ValueError(f"unknown fault {fault!r}")
        self.fault, self.at = fault, at
        self.calls = 0
        self.names: list[str] = []  # the name of every call counted, in order
        self.fired: str | None = None  # the call the fault hit, once it has
        self.armed = True
        self.say = say
        self.healed = False

    def heal(self) -> None:
        """End a persistent fault (EIO*) that has fired: later calls go through."""
        if self.fired is not None:
            self.healed = True

    # --- the decision at each call ------------------------------------------------------------
    def _step(self, name: str) -> int | None:
        """The errno the call must fail with, None to let it through (or never return: KILL)."""
        if not self.armed:
            return None
        n = self.calls
        self.calls += 1
        self.names.append(name)
        if self.fault == "EIO*" and self.fired is not None and not self.healed:
            return errno.EIO
        if self.fault is None or n != self.at:
            return None
        self.fired = name
        if self.fault == "KILL":
            if self.say is not None:  # which call it was, for the parent (nothing comes after)
                self.say.write(f"killed at {name}\n")
                self.say.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        return errno.ENOSPC if self.fault == "ENOSPC" else errno.EIO

    # --- the wrappers -------------------------------------------------------------------------
    def _os_call(self, name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            code = self._step(name)
            if code is None:
                return original(*args, **kwargs)
            if name == "write" and code == errno.ENOSPC and len(args) == 2:
                fd, data = args
                half = bytes(data)[: len(data) // 2]
                if half:
                    original(fd, half)
            where = args[0] if name in _PATH_CALLS and args else None
            other = args[1] if name in ("replace", "rename") and len(args) > 1 else None
            raise OSError(code, os.strerror(code), where, None, other)

        return call

    def _os_open(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def call(path: Any, flags: int, *args: Any, **kwargs: Any) -> Any:
            if not flags & WRITE_FLAGS:
                return original(path, flags, *args, **kwargs)
            code = self._step("open")
            if code is None:
                return original(path, flags, *args, **kwargs)
            raise OSError(code, os.strerror(code), os.fspath(path) if path is not None else None)

        return call

    def _io_open(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def call(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            if isinstance(file, int) or not WRITE_MODES & set(str(mode)):
                return original(file, mode, *args, **kwargs)
            code = self._step("open")
            if code is None:
                return original(file, mode, *args, **kwargs)
            raise OSError(code, os.strerror(code), os.fspath(file))

        return call

    def _polars(self, name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def call(frame: Any, target: Any = None, *args: Any, **kwargs: Any) -> Any:
            code = self._step(name)
            if code is None:
                # One call of the writer is one point: the calls inside it (write_parquet sinks
                # a LazyFrame) are the same write.
                armed, self.armed = self.armed, False
                try:
                    return original(frame, target, *args, **kwargs)
                finally:
                    self.armed = armed
            if isinstance(target, (str, os.PathLike)):
                self.armed = False  # the partial file is the fault's doing, not a call of its own
                try:
                    with contextlib.suppress(OSError):
                        Path(target).write_bytes(b"PAR1\x00\x00")  # what a writer leaves part-way
                finally:
                    self.armed = True
            text = f"{os.strerror(code)} (os error {code})"
            if name in ("write_csv", "write_ndjson"):
                raise OSError(text)
            raise pl.exceptions.ComputeError(f"failed to write: {text}")

        return call

    # --- installing ---------------------------------------------------------------------------
    @contextmanager
    def installed(self) -> Iterator[Injector]:
        """Wrap every call for the time of the ``with`` block, and restore them after."""
        saved: list[tuple[Any, str, Any]] = []

        def put(owner: Any, name: str, value: Any) -> None:
            saved.append((owner, name, getattr(owner, name)))
            setattr(owner, name, value)

        real_write = os.write  # an ENOSPC's half write must not count as a call of its own
        try:
            for name in OS_CALLS:
                original = real_write if name == "write" else getattr(os, name)
                put(os, name, self._os_call(name, original))
            put(files_module, "_datasync", os.fdatasync)
            put(os, "open", self._os_open(os.open))
            wrapped_open = self._io_open(io.open)
            put(io, "open", wrapped_open)
            put(builtins, "open", wrapped_open)
            for owner, name in POLARS_WRITERS:
                put(owner, name, self._polars(name, getattr(owner, name)))
            yield self
        finally:
            for owner, name, value in reversed(saved):
                setattr(owner, name, value)
