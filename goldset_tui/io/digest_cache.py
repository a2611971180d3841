"""The sha256 of large pool files, remembered across runs by what a change to their bytes changes.

A pool's sha256 is its identity in every store (which store a pool opens, whether a store's pool
changed), so each `goldset judge` hashed the whole file again: 0.14 s of CPU for a 200 MB pool,
a tenth of opening it. The digest is kept here, in the data folder, under the file's device,
inode, size, modification and change times, the same test git's index makes before it trusts a
file unchanged: a write changes the change time (ctime), which no tool can set back. A digest is
kept only for a file last changed two seconds or more before it was hashed (``pools``), so a write
within the clock's tick after hashing cannot hide.

A cache, nothing more: a missing, unreadable or corrupt file means "hash it"; a failed write is
ignored; only files of ``REMEMBER_FROM`` bytes or more are kept (a small pool hashes faster than
this file is read), the newest ``KEEP`` of them.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from goldset_tui.locations import data_dir

REMEMBER_FROM = 16 * 1024 * 1024
KEEP = 32
Key = tuple[int, int, int, int, int]  # device, inode, size, mtime_ns, ctime_ns


def cache_file() -> Path:
    return data_dir() / "digests.json"


def _entries() -> list[list[object]]:
    try:
        data = json.loads(cache_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    entries = data.get("sha256") if isinstance(data, dict) else None
    return [e for e in entries or [] if isinstance(e, list) and len(e) == 6]


def recall(key: Key) -> str | None:
    """The digest remembered for a file with exactly these stat fields, or None."""
    if key[2] < REMEMBER_FROM:
        return None
    for entry in _entries():
        if tuple(entry[:5]) == key and isinstance(entry[5], str) and len(entry[5]) == 64:
            return entry[5]
    return None


def remember(key: Key, digest: str) -> None:
    """Keep ``digest`` for the file (best effort: a cache that cannot be written is skipped)."""
    if key[2] < REMEMBER_FROM:
        return
    kept = [e for e in _entries() if tuple(e[:2]) != key[:2]][-(KEEP - 1) :]
    target = cache_file()
    tmp = target.with_name(f".tmp-{target.name}.{os.getpid()}")
    with contextlib.suppress(OSError):
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps({"sha256": [*kept, [*key, digest]]}), encoding="utf-8")
        os.replace(tmp, target)  # readers see the old list or the new one
    with contextlib.suppress(OSError):
        tmp.unlink(missing_ok=True)
