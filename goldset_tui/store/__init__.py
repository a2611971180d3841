"""The crash-safe judgment store: append-only journals, Parquet snapshots, a TOML manifest.

Start from :class:`Project`; see ``docs/store.md`` for the layout and the guarantees.
"""

from goldset_tui.store.files import now_iso, safe_name, sha256_file
from goldset_tui.store.journal import Journal, replay
from goldset_tui.store.project import Project, default_store_for, find_stores
from goldset_tui.store.writer import JudgmentWriter

__all__ = [
    "Journal",
    "JudgmentWriter",
    "Project",
    "default_store_for",
    "find_stores",
    "now_iso",
    "replay",
    "safe_name",
    "sha256_file",
]
