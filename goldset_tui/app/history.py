"""A store's history (`goldset history`) and its named regression cases (`goldset
regressions`): the releases recorded in the store, checked against what the caller asked for,
and each case's status in the latest release of every system (docs/history.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goldset_tui.errors import InputError
from goldset_tui.text import visible

if TYPE_CHECKING:
    from goldset_tui.history.records import Record
    from goldset_tui.history.regressions import Case
    from goldset_tui.history.timeline import History


def store_history(
    store: Path,
    *,
    metric: str | None,
    system: str | None,
    recurring: tuple[int, int],
    seed: int,
    samples: int,
) -> History:
    """The store's releases of ``metric`` (default: the one recorded most often) for ``system``
    (default: every one); a measure or a system never recorded is an input error naming those
    that were."""
    from goldset_tui.history.records import load_records
    from goldset_tui.history.timeline import build_history, metrics_of
    from goldset_tui.store.manifest import read_manifest

    read_manifest(store)
    records = load_records(store)
    known = metrics_of(records)
    if metric is not None and records and metric not in known:
        raise InputError(
            store, f"no release recorded with {metric!r} (recorded: {', '.join(known)})"
        )
    systems = sorted({r.system for r in records})
    if system is not None and records and system not in systems:
        shown = ", ".join(repr(visible(s, keep_newlines=False)) for s in systems)
        raise InputError(
            store,
            f"no system {visible(system, keep_newlines=False)!r} recorded (recorded: {shown})",
        )
    return build_history(
        records, metric=metric, system=system, recurring=recurring, seed=seed, samples=samples
    )


def store_records(store: Path) -> list[Record]:
    """Every release recorded in the store (a folder that is no store is refused first)."""
    from goldset_tui.history.records import load_records
    from goldset_tui.store.manifest import read_manifest

    read_manifest(store)
    return load_records(store)


def promote_case(
    store: Path, query_id: str, name: str, note: str, records: list[Record]
) -> tuple[Case, bool]:
    """Name query ``query_id`` as a regression case; the case, and whether anything was written
    (the same case named again writes nothing)."""
    from goldset_tui.history.regressions import promote

    return promote(store, query_id, name, note, records)


@dataclass(frozen=True)
class CaseStatus:
    """One named case, and its status in the latest release of each system and measure
    (``status``, ``system``, ``release``, ``measure``)."""

    case: Case
    rows: list[dict[str, Any]]


def case_statuses(store: Path, records: list[Record]) -> list[CaseStatus]:
    """Every named case of the store with its status, the latest releases in recording order."""
    from goldset_tui.history.regressions import case_status, load_cases
    from goldset_tui.history.timeline import by_system, release_order

    cases = load_cases(store)
    if not cases:
        return []
    order = release_order(records)
    latest = []
    for metric in sorted({r.measure for r in records}):
        for recs in by_system(records, metric).values():
            latest.append(recs[-1])
    latest.sort(key=lambda r: (order.index(r.release), r.system, r.measure))
    return [CaseStatus(case, case_status([case], latest)) for case in cases]
