"""Helpers for the judging tests about saving (no tests here): a real store, and the journal's
fdatasync held on an event the test opens, so a save is "still on its way to the disk" for
exactly as long as the test says (no sleeps a loaded machine can outlast)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import goldset_tui.store.files as files_module
from goldset_tui.store import Project, sha256_file
from goldset_tui.store.writer import JudgmentWriter


def store(tmp_path: Path) -> tuple[Project, JudgmentWriter]:
    """A new store of a one-query pool file, and alice's writer on it."""
    pool_file = tmp_path / "pool.jsonl"
    pool_file.write_text('{"query_id": "q1"}\n')
    project = Project.create(
        tmp_path / "store", pool_path=pool_file, pool_sha256=sha256_file(pool_file)
    )
    return project, project.writer("alice")


class HeldFsync:
    """Every fdatasync of the journal waits until ``open()``; then it returns, or raises the
    ``error`` that was set when it started (so changing ``error`` later spares the held one).
    ``returned`` is set once a held fdatasync has reached the disk and returned."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, error: OSError | None = None) -> None:
        self.error = error
        self.returned = threading.Event()
        self._gate = threading.Event()
        real = files_module._datasync

        def held(fd: int) -> None:
            error = self.error
            self._gate.wait(10)
            if error is not None:
                raise error
            real(fd)
            self.returned.set()

        monkeypatch.setattr(files_module, "_datasync", held)

    def open(self) -> None:
        self._gate.set()


async def until(pilot: object, condition: Callable[[], bool], seconds: float = 120.0) -> None:
    """Let the app run until ``condition()`` holds (an assertion error after ``seconds``: only a
    guard against a hang, long enough that a loaded machine never reaches it while all is well)."""
    end = time.monotonic() + seconds
    while not condition() and time.monotonic() < end:
        await pilot.pause(0.02)  # type: ignore[attr-defined]
    assert condition(), "not reached in time"
