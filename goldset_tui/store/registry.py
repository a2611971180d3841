"""The stores goldset knows: every store it has made or opened, wherever it lives.

A store can live anywhere (``--store DIR``), so without a list of them ``goldset judge POOL``
could only look in the pool's default folder, and a labeller who forgot ``--store`` was given a
new, empty store instead of the one holding her grades. This module keeps that list: one JSON
file in the user's data folder (``locations.known_stores_file``), absolute paths in the order
they were first seen.

Contract:
- Remembering is a courtesy, never a failure: an unwritable data folder, a full disk or a damaged
  file are ignored (the command goes on; the store is simply not remembered this time).
- Every write is atomic (temporary file, fsync, rename): a crash leaves the old list or the new.
- Entries can go stale (a store moved or deleted): readers get only those that are still stores,
  and the next write drops the rest. Two processes writing at once may lose one entry; it comes
  back the next time that store is opened.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from goldset_tui.io.values import loads_json
from goldset_tui.locations import known_stores_file, projects_dir
from goldset_tui.store.files import atomic_write_bytes, remove_dead_tmp
from goldset_tui.store.manifest import manifest_path


def _read() -> list[str]:
    try:
        data = loads_json(known_stores_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    stores = data.get("stores") if isinstance(data, dict) else None
    return [s for s in stores if isinstance(s, str)] if isinstance(stores, list) else []


def _absolute(store: str | Path) -> Path:
    try:
        return Path(store).expanduser().resolve()
    except (OSError, RuntimeError):  # a symlink loop
        return Path(store).expanduser().absolute()


def remember(store: str | Path) -> None:
    """Add ``store`` to the list (nothing happens when it is there already, or on any error)."""
    path = str(_absolute(store))
    # What a writer of the list killed mid-write left beside it, also when nothing is written now
    # (every open remembers its store, so the list itself is rarely written again).
    remove_dead_tmp(known_stores_file())
    listed = _read()
    if path in listed:
        return
    kept = [s for s in listed if manifest_path(Path(s)).is_file()] + [path]
    data = json.dumps({"stores": kept}, indent=1, ensure_ascii=False) + "\n"
    try:
        atomic_write_bytes(known_stores_file(), data.encode("utf-8"))
    except OSError:
        return


def known_stores() -> list[Path]:
    """Every store still there that goldset has made or opened, and every store in the default
    folder (made before this list existed, or copied there), each once."""
    found = [Path(s) for s in _read()]
    base = projects_dir()
    if base.is_dir():
        with contextlib.suppress(OSError):
            found += sorted(p for p in base.iterdir() if manifest_path(p).is_file())
    out: dict[Path, None] = {}
    for store in found:
        try:
            if manifest_path(store).is_file():
                out.setdefault(_absolute(store), None)
        except OSError:
            continue
    return list(out)
