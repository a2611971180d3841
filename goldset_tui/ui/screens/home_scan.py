"""What the home screen lists: every store goldset knows (``store.registry``: the ones it has
made or opened anywhere, and those in the default folder), or the one store of ``goldset --store
DIR``, one row per (project, labeller). No Textual here: the rows are plain data."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from goldset_tui.ui.text.project_names import distinct_names


@dataclass(frozen=True)
class Plan:
    """A store's planned overlap (``[assignment]``): who shares the queries, how much, the seed."""

    overlap: float
    labellers: tuple[str, ...]
    seed: int


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
    plan: Plan | None = None  # the labeller's share is the plan's, when she is on its team


def plan_of(manifest: dict[str, Any]) -> Plan | None:
    saved = manifest.get("assignment")
    if not isinstance(saved, dict):
        return None
    try:
        names = tuple(str(n) for n in saved.get("labellers", []))
        return Plan(float(saved["overlap"]), names, int(saved.get("seed", 0)))
    except (KeyError, TypeError, ValueError):
        return None


def stores_to_list(root: Path | None, stores: list[Path] | None) -> list[Path]:
    from goldset_tui.store import find_stores
    from goldset_tui.store.registry import known_stores

    if stores is not None:
        return list(stores)
    if root is not None:
        return find_stores(root)
    return sorted(known_stores(), key=str)


def scan(root: Path | None = None, *, stores: list[Path] | None = None) -> list[Row]:
    """One row per (project, labeller); a project nobody judged yet gets one row without one.
    ``root``: the stores directly under that folder only; ``stores``: exactly these."""
    from goldset_tui.store import Project
    from goldset_tui.store.machine import machine_labellers

    rows: list[Row] = []
    for store in stores_to_list(root, stores):
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
        plan = plan_of(project.manifest)
        for person in people or [None]:
            name = person["labeller"] if person else None
            rows.append(
                Row(
                    store,
                    project.name,
                    project.pool_path,
                    name,
                    int(person["judged"]) if person else 0,
                    (person.get("last") or "") if person else "",  # shown by when.short_time
                    created,
                    project.pool_sha256,
                    plan if plan is not None and name in plan.labellers else None,
                )
            )
    names = distinct_names({r.store: (r.project, r.pool) for r in rows})
    return [replace(r, project=names[r.store]) for r in rows]


def pairs_per_query(pool: Path) -> dict[str, int] | None:
    """Candidates per query, in the pool's order (None: the pool moved or is broken, shown "?")."""
    from goldset_tui.io.pools import load_pool

    try:
        counts = load_pool(pool).frame.group_by("query_id", maintain_order=True).len()
    except Exception:
        return None
    return dict(counts.iter_rows())


def share_size(row: Row, counts: dict[str, int] | None) -> int | None:
    """The pairs the row's labeller has to judge: her planned share, or the whole pool."""
    if counts is None:
        return None
    if row.plan is None or row.labeller is None:
        return sum(counts.values())
    from goldset_tui.agreement.assignment import assigned_query_ids

    plan = row.plan
    mine = assigned_query_ids(
        list(counts), row.labeller, list(plan.labellers), plan.overlap, plan.seed
    )
    return sum(counts[q] for q in mine)
