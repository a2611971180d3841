"""Where stores live: a pool's default store, the stores in a folder, and the check that a new
store goes only into a folder that can hold it (missing, empty, or holding only what a killed
creation left)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from goldset_tui.errors import InputError
from goldset_tui.locations import projects_dir
from goldset_tui.store.files import TMP_PREFIX, slug
from goldset_tui.store.manifest import LOCK, MANIFEST, manifest_path


def default_store_for(pool_path: str | Path) -> Path:
    """The default store of a pool: one folder per pool file under the user's data directory."""
    resolved = str(Path(pool_path).expanduser().resolve())
    digest = hashlib.sha256(resolved.encode("utf-8")).hexdigest()[:10]
    return projects_dir() / f"{slug(Path(pool_path).stem) or 'pool'}-{digest}"


def find_stores(root: str | Path | None = None) -> list[Path]:
    """Store folders directly under ``root`` (default: where default stores live), by name."""
    base = Path(root) if root is not None else projects_dir()
    if not base.is_dir():
        return []
    return sorted(p for p in base.iterdir() if (p / "manifest.toml").is_file())


def refuse_busy_folder(store: Path) -> None:
    """A new store goes into a missing or empty folder, never over a store or other files."""
    if manifest_path(store).exists():
        raise InputError(store, "is already a goldset store; open it instead")
    if store.is_dir() and not all(_creation_leftover(p) for p in store.iterdir()):
        raise InputError(store, "folder is not empty and is not a goldset store")


def _creation_leftover(path: Path) -> bool:
    """What a creation stopped before its manifest landed leaves in the folder: the manifest's
    lock file and the temporary manifest. A folder holding only these is as good as empty (a kill
    there once made the pool's default store unusable for every later `judge` and `import`)."""
    return path.name == LOCK or path.name.startswith(f"{TMP_PREFIX}{MANIFEST}.")
