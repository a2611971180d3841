"""Files that belong together (labels and the manifest that vouches for them; a sample, its strata
and traffic files and its manifest), written so that a failure leaves the earlier set whole.

Each file is already written atomically (``atomic_write``: the old one or the new one, never half
of one). A set needs more: written one after another, a failure at the manifest would leave new
labels beside the manifest of the run before, which names another file's sha256 and other counts.
``written_together`` keeps a hard link to each file's old version before the block writes
anything, and when the block raises puts every file back as it was (or removes a file that did
not exist), then syncs the folders; on success the links go.

What it cannot do: a process killed between two of the renames leaves some files new and some
old, each whole (a rename journal would be needed to finish or undo it, and a program other than
goldset reading the folder would still see the moment between). The manifest is written last
and records the sha256 of every file it describes, so a mismatch is visible; running the command
again writes the whole set. The links a killed writer leaves are named like its temporary files
and removed by the next write of the same file. Where hard links are refused (some network or FAT
file systems) an overwritten file cannot be put back: the error says which files are new.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from goldset_tui.errors import InputError
from goldset_tui.store.files import fsync_path, keep_old, remove_dead_tmp
from goldset_tui.text import visible


@dataclass
class _Kept:
    path: Path
    existed: bool
    link: Path | None  # a hard link to the old version, None when there was none or links fail
    inode: tuple[int, int] | None  # the old version's (device, inode): a rename changes it


def _inode(path: Path) -> tuple[int, int] | None:
    try:
        found = os.lstat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


@contextlib.contextmanager
def written_together(paths: Sequence[Path]) -> Iterator[None]:
    """Run the block that writes ``paths``; if it raises, every path is as it was before."""
    kept: list[_Kept] = []
    try:
        for path in dict.fromkeys(Path(p) for p in paths):  # once each, in order
            remove_dead_tmp(path)
            kept.append(_Kept(path, *keep_old(path), _inode(path)))
        yield
    except BaseException as exc:
        stuck = _put_back(kept)
        if stuck and not isinstance(exc, KeyboardInterrupt):
            raise _stuck_error(exc, stuck) from exc
        raise
    finally:
        for item in kept:
            if item.link is not None:
                with contextlib.suppress(OSError):
                    os.unlink(item.link)


def _put_back(kept: list[_Kept]) -> list[Path]:
    """Every file back to its old version; returns those that could not be (they stay new)."""
    stuck: list[Path] = []
    folders: set[Path] = set()
    for item in kept:
        if _inode(item.path) == item.inode:
            continue  # not replaced (or put back by atomic_write itself)
        try:
            if item.link is not None:
                os.replace(item.link, item.path)
                item.link = None  # renamed into place: nothing left to unlink
            elif not item.existed:
                os.unlink(item.path)
            else:
                stuck.append(item.path)  # no link to the old version: it cannot come back
                continue
            folders.add(item.path.parent)
        except OSError:
            stuck.append(item.path)
    for folder in folders:
        with contextlib.suppress(OSError):
            fsync_path(folder)  # the old versions are what readers see either way
    return stuck


def _stuck_error(exc: BaseException, stuck: list[Path]) -> InputError:
    """The error being raised, saying which files could not be put back (they ARE the new ones)."""
    names = ", ".join(visible(p, keep_newlines=False) for p in stuck)
    said = exc.message if isinstance(exc, InputError) else f"{type(exc).__name__}: {exc}"
    where = exc.path if isinstance(exc, InputError) else stuck[0]
    return InputError(
        where,
        f"{said}; {names} could not be put back (they ARE the new ones, the rest of the set the "
        "old): run the command again",
    )
