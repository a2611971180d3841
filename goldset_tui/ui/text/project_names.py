"""Names that tell projects apart on the home screen: pure, no Textual (moved out of
``ui/screens/home.py``, which was at its size limit)."""

from __future__ import annotations

from pathlib import Path


def distinct_names(projects: dict[Path, tuple[str, Path]]) -> dict[Path, str]:
    """A name per store that tells projects apart: the project's own name when it is unique, else
    it prefixed with as many of its pool's folders as it takes ("runs-a/pool", "runs-b/pool"); two
    stores of the very same pool file get their store folder's name after it."""
    by_name: dict[str, list[Path]] = {}
    for store, (name, _) in projects.items():
        by_name.setdefault(name, []).append(store)
    names: dict[Path, str] = {}
    for name, stores in by_name.items():
        if len(stores) == 1:
            names[stores[0]] = name
            continue
        folders = {store: projects[store][1].parent.parts for store in stores}
        depth = max(len(f) for f in folders.values())
        for n in range(1, depth + 1):
            labels = {store: "/".join([*folders[store][-n:], name]).lstrip("/") for store in stores}
            if len(set(labels.values())) == len(stores):
                names.update(labels)
                break
        else:
            files = {store: projects[store][1].name for store in stores}
            if len(set(files.values())) == len(stores):  # same folder: pool.csv and pool.jsonl
                names.update(files)
            else:  # the same pool file in two stores: the store folders differ, by definition
                names.update({store: f"{name} ({store.name})" for store in stores})
    return names
