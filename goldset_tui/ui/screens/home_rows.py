"""The home screen's rows: one per (project, labeller) of every store found, read without Textual
(the home screen shows them; tests and the palette read them too)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from goldset_tui.project_names import distinct_names


@dataclass(frozen=True)
class Row:
    store: Path
    project: str
    pool: Path
    labeller: str | None
    judged: int
    last: str
    created: str = ""  # when the store was made (manifest), to tell two alike projects apart
    pool_sha: str = ""  # the pool file's sha256 the store was made from


def scan(root: Path | None = None) -> list[Row]:
    """One row per (project, labeller); a project nobody judged yet gets one row without one."""
    from goldset_tui.store import Project, find_stores
    from goldset_tui.store.machine import machine_labellers

    rows: list[Row] = []
    for store in find_stores(root):
        try:
            project = Project.open(store)
            summary = project.summary()
        except Exception:  # a damaged store is listed, not fatal for the home screen
            rows.append(Row(store, store.name + " (unreadable)", Path(""), None, 0, ""))
            continue
        # A machine judge's labels were imported, not judged here: no row to resume judging.
        machines = set(machine_labellers(project.manifest))
        people: list[dict[str, Any] | None] = [
            p for p in summary.to_dicts() if p["labeller"] not in machines
        ]
        created = str(project.manifest.get("created") or "")[:16].replace("T", " ")
        for person in people or [None]:
            rows.append(
                Row(
                    store,
                    project.name,
                    project.pool_path,
                    person["labeller"] if person else None,
                    int(person["judged"]) if person else 0,
                    (person.get("last") or "") if person else "",  # shown by when.short_time
                    created,
                    project.pool_sha256,
                )
            )
    names = distinct_names({r.store: (r.project, r.pool) for r in rows})
    return [replace(r, project=names[r.store]) for r in rows]
