"""Taking over a labeller's session that a dropped connection left running.

After an SSH drop the old `goldset judge` may still hold the labeller's journal lock (its SIGHUP
never came, or it is still flushing). The second `goldset judge --labeller dee` used to refuse
and tell the labeller to find and kill it. The lock file names its holder (``pid host since``,
journal.py ``write_holder``), so goldset can end it itself: SIGHUP, which a judging session
answers by writing every pending grade, compacting and releasing the lock on its way out
(ui/app.py), then wait for the lock to be free, the sign that its flush is done.

Only a process on this machine is ended, and never a merge (which holds the journals it writes
while it runs and must finish). Core on purpose: no Textual.
"""

from __future__ import annotations

import errno
import os
import signal
import socket
import time
from pathlib import Path

from goldset_tui.errors import StoreLockedError
from goldset_tui.store.journal import holder, holder_id, is_locked, lock_path_for

# How long the old session may take to save and close after SIGHUP before goldset gives up.
TAKE_OVER_WAIT = 30.0


def session_holder(journal: Path) -> tuple[int, str] | None:
    """(pid, who: the holder said in words) of the live process holding ``journal``'s lock, or
    None when nobody holds it. StoreLockedError when it cannot be taken over from here (another
    machine, or a holder that did not say who it is)."""
    if not is_locked(journal):
        return None
    lock = lock_path_for(journal)
    found = holder_id(lock)
    who = holder(lock)
    if found is None or not found[0].isdigit():
        raise StoreLockedError(f"{journal}: already open for writing by {who}; close that session")
    pid, host = int(found[0]), found[1]
    if host and host != socket.gethostname():
        raise StoreLockedError(
            f"{journal}: already open for writing by {who}; end it on {host} (goldset can only "
            "end a session on this machine)"
        )
    if pid == os.getpid():
        raise StoreLockedError(f"{journal}: already open for writing by {who}")
    return pid, who


def end_session(journal: Path, pid: int, *, wait: float = TAKE_OVER_WAIT) -> None:
    """Send ``pid`` SIGHUP and wait until ``journal``'s lock is free (its flush done).
    StoreLockedError if it still holds the lock after ``wait`` seconds."""
    try:
        os.kill(pid, signal.SIGHUP)
    except ProcessLookupError:
        pass  # gone already: the lock goes with it
    except PermissionError as exc:
        raise StoreLockedError(
            f"{journal}: process {pid} belongs to another user ({os.strerror(exc.errno or errno.EPERM)})"
        ) from None
    deadline = time.monotonic() + wait
    while is_locked(journal):
        if time.monotonic() >= deadline:
            raise StoreLockedError(
                f"{journal}: process {pid} was asked to close (SIGHUP) but still holds the "
                f"journal after {wait:g} s; it may be saving a large group: try again shortly"
            )
        time.sleep(0.02)  # waiting on another process's exit: nothing to be notified by
