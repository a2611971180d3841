"""The manifest checked against the files: hand edits that would hide or misattribute judgments.

Judgments are found through the manifest: ``[labellers.<safe>]`` names the labeller whose files are
``journal/<safe>.jsonl`` and ``judgments/<safe>/``. A name edited by hand in the manifest, or a
table deleted, would leave judgments on disk that nothing reads ("no judgments yet"), so opening a
store says what disagrees instead of trusting either side.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from goldset_tui.errors import InputError
from goldset_tui.store.files import safe_name
from goldset_tui.store.manifest import manifest_path
from goldset_tui.text import visible


def labellers_with_files(store: Path) -> dict[str, Path]:
    """``<safe>`` -> the first file holding judgments under that name (a non-empty journal or a
    folder of parts)."""
    found: dict[str, Path] = {}
    journals = store / "journal"
    if journals.is_dir():
        for path in sorted(journals.glob("*.jsonl")):
            if path.is_file() and path.stat().st_size > 0:
                found.setdefault(path.name.removesuffix(".jsonl"), path)
    parts = store / "judgments"
    if parts.is_dir():
        for folder in sorted(parts.iterdir()):
            if folder.is_dir() and any(folder.glob("part-*.parquet")):
                found.setdefault(folder.name, folder)
    return found


def check_layout(store: Path, manifest: dict[str, Any]) -> None:
    """Every manifest labeller's name maps to its own files, and every file has a labeller."""
    where = manifest_path(store)
    entries: dict[str, Any] = manifest.get("labellers", {})
    for safe, entry in entries.items():
        name = entry["name"]
        try:
            expected = safe_name(name)
        except ValueError:
            expected = ""
        if expected != safe:
            raise InputError(
                where,
                f"labeller name {visible(name)!r} does not belong to the files of "
                f"[labellers.{visible(safe)}] (that name's files would be "
                f"{visible(expected) or 'none'!r}); was the name edited by hand? put the original "
                "name back: renaming a labeller would hide their judgments",
                column=f"labellers.{safe}",
            )
    for safe, path in labellers_with_files(store).items():
        if safe not in entries:
            raise InputError(
                where,
                f"{path} holds judgments, but the manifest has no [labellers.{visible(safe)}] "
                "table for them; was it deleted by hand? put it back with the labeller's name",
                column="labellers",
            )
