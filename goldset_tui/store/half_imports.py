"""Taking back an import that stopped half way, so that an import is all there or not there at all.

An import (a person's qrels, a machine's labels) writes in this order, under the labeller's writer
lock: a machine's provenance file (``machine/<safe>/<sha256[:16]>.parquet``), then the manifest's
entry and record in one write, then every grade as one Parquet part. The part is the commit
point: before it lands, what the earlier steps wrote links no grade. A kill (or a failure whose
own clean-up fails too: a disk refusing every write) between the steps used to leave that behind
for every reader to see: a new name listed as a labeller with no grades, a provenance file no
record names, until the next import of the same name.

:func:`roll_back_half_imports` runs on every store open (and on an import's failure, under the
lock it holds): for each labeller name that has no judgment at all (no journal, no part), it takes
out the import records whose grades did not land (a record saying it wrote ``written > 0``
grades, none of which exist), the entry itself when that import made it (its ``first`` is the
record's ``time``), and the provenance files no remaining record names. It first takes the
labeller's writer lock without waiting: a live import holds it from before its first write to
after its last, so a held lock means the import may still be going on, and nothing is touched.
It is best effort: a store that cannot be written (read-only, a full disk) is read as it is, and
readers ignore a record that links nothing anyway (:func:`machine.landed_imports`).

A name that already had grades keeps them: a second import of it that stopped half way loses
only a provenance file no record names; a record it wrote links nothing, which readers ignore and
the next import of the name drops.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from goldset_tui.errors import InputError, StoreLockedError
from goldset_tui.store.checks import labellers_with_files
from goldset_tui.store.files import TMP_PREFIX
from goldset_tui.store.journal import lock_path_for
from goldset_tui.store.manifest import read_manifest, update_manifest

MACHINE_DIR = "machine"


def _orphan_records(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """A grade-less name's import records that claim grades (none of which exist)."""
    records = entry.get("imports", [])
    if not isinstance(records, list):
        return []
    return [
        r
        for r in records
        if isinstance(r, dict) and isinstance(r.get("written"), int) and r["written"] > 0
    ]


def _leftover_sides(store: Path, safe: str, named: list[Any]) -> list[Path]:
    """What an import of ``safe`` stopped before its record left in ``machine/<safe>/``: a
    provenance file none of the records ``named`` names, and temporary files (a live writer's
    too: the caller holds the writer lock before removing any)."""
    folder = store / MACHINE_DIR / safe
    if not folder.is_dir():
        return []
    stems = {str(r.get("sha256", ""))[:16] for r in named if isinstance(r, dict)}
    return [
        p
        for p in sorted(folder.iterdir())
        if p.name.startswith(TMP_PREFIX) or p.suffix == ".parquet" and p.stem not in stems
    ]


def _candidates(store: Path, manifest: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Names (``<safe>``) that may hold a half import, from cheap checks only (no judgment
    read): those without any judgment, and those with judgments whose ``machine/<safe>/``
    holds a file no record names."""
    entries = manifest.get("labellers", {})
    if not isinstance(entries, dict):
        return [], []
    machine = store / MACHINE_DIR
    folders = [p.name for p in sorted(machine.iterdir())] if machine.is_dir() else []
    maybe = [s for s, e in entries.items() if isinstance(e, dict) and _orphan_records(e)]
    maybe += [name for name in folders if name not in maybe]
    if not maybe:
        return [], []
    with_files = labellers_with_files(store)
    sides = [
        name
        for name in folders
        if name in with_files
        and _leftover_sides(store, name, (entries.get(name) or {}).get("imports", []))
    ]
    return [s for s in maybe if s not in with_files], sides


@contextlib.contextmanager
def _writer_lock(store: Path, safe: str) -> Iterator[bool]:
    """The labeller's writer lock, taken without waiting: True when taken. A missing lock file
    means no import of the name ever opened a writer here (nothing of it to take back)."""
    lock_path = lock_path_for(store / "journal" / f"{safe}.jsonl")
    try:
        fd = os.open(lock_path, os.O_RDWR)
    except OSError:
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def roll_back(store: Path, safe: str) -> dict[str, Any] | None:
    """Take back the half import of ``safe`` (the caller holds its writer lock and has seen that
    it has no judgment); returns the new manifest, or None when nothing was to be taken out of
    it."""
    result: list[dict[str, Any]] = []

    def change(data: dict[str, Any]) -> None:
        entry = data.get("labellers", {}).get(safe)
        if not isinstance(entry, dict):
            return
        orphans = _orphan_records(entry)
        if not orphans:
            return
        keep = [r for r in entry.get("imports", []) if all(r is not o for o in orphans)]
        if not keep and entry.get("first") == orphans[0].get("time"):
            del data["labellers"][safe]  # the import made the entry: it goes with it
        else:
            entry["imports"] = keep
        result.append(data)

    entry = None
    current = read_manifest(store).get("labellers", {}).get(safe)
    if isinstance(current, dict) and _orphan_records(current):
        manifest = update_manifest(store, change)
        entry = manifest.get("labellers", {}).get(safe)
    elif isinstance(current, dict):
        entry = current
    folder = store / MACHINE_DIR / safe
    # Under the writer lock no import of the name is writing: a temporary file is a dead one's.
    for side in _leftover_sides(store, safe, (entry or {}).get("imports", [])):
        side.unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        folder.rmdir()  # only when empty
        (store / MACHINE_DIR).rmdir()
    return result[0] if result else None


def roll_back_half_imports(store: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    """On opening ``store``: take back every half import no live process is finishing (see the
    module docstring); returns the manifest as it is now."""
    whole, sides = _candidates(store, manifest)
    for safe in whole:
        try:
            with _writer_lock(store, safe) as locked:
                if locked and safe not in labellers_with_files(store):
                    manifest = roll_back(store, safe) or manifest
        except (OSError, InputError, StoreLockedError):  # best effort: read-only, full disk
            continue
    for safe in sides:  # a name with grades keeps them; only the files no record names go
        try:
            with _writer_lock(store, safe) as locked:
                if not locked:
                    continue  # an import of the name may be going on
                entry = read_manifest(store).get("labellers", {}).get(safe)
                for side in _leftover_sides(store, safe, (entry or {}).get("imports", [])):
                    side.unlink(missing_ok=True)
        except (OSError, InputError, StoreLockedError):
            continue
    return manifest


def take_back_failed(store: Path, safe: str) -> dict[str, Any] | None:
    """After an import of ``safe`` failed, under the writer lock it still holds: what it wrote
    before its grades is taken back unless a grade of the name reached the disk. Best effort (the
    import's own error is the one to report; the next open tries again); returns the new
    manifest, or None."""
    try:
        if safe in labellers_with_files(store):  # a known name: its grades stay
            entry = read_manifest(store).get("labellers", {}).get(safe) or {}
            for side in _leftover_sides(store, safe, entry.get("imports", [])):
                side.unlink(missing_ok=True)
            return None
        return roll_back(store, safe)
    except (OSError, InputError, StoreLockedError):
        return None


def not_imported(exc: OSError) -> OSError:
    """An import's error before its grades' part (its commit point): whatever the failed step
    said of its own file (an ``atomic_write`` that could not take its rename back says the new
    manifest IS in place), the import is not there, and the next open takes back what it wrote."""
    if exc.errno is None:
        return exc
    return OSError(exc.errno, f"{os.strerror(exc.errno)}; nothing was imported", exc.filename)
