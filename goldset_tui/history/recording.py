"""What `goldset report` and `goldset eval` do with ``--store DIR --release NAME``: record each
system's run in the store's history, say so, and say whether every named regression case passes
this release. Also the actionable unjudged-fraction advice (re-pool once more than about a fifth
of a run's top k is unjudged: docs/background.md#unjudged-fraction), with the exact
`goldset pool --extend` command to run.

Everything is checked before the evaluation runs (:func:`check_release_args`), so a wrong
``--store`` costs nothing and writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError, StoreLockedError
from goldset_tui.history.records import (
    Record,
    ReleaseNotRecorded,
    ReleaseUnfinished,
    make_record,
    record_all,
)
from goldset_tui.history.regressions import case_status, load_cases
from goldset_tui.history.version import golden_set_version
from goldset_tui.store.manifest import read_manifest


def check_release_args(store: str | None, release: str | None) -> Path | None:
    """The store to record into, or None; both options or neither, and a real store."""
    if (store is None) != (release is None):
        raise InputError(None, "--store and --release go together: give both to record this run")
    if store is None or release is None:
        return None
    if not release.strip():
        raise InputError(None, "--release must not be empty")
    read_manifest(Path(store))
    return Path(store)


def system_records(
    store: Path,
    release: str,
    *,
    qrels: pl.DataFrame,
    measure: str,
    scores: pl.DataFrame,
    systems: Sequence[str],
    k: int,
    binary: bool | None = None,
    strata: pl.DataFrame | None = None,
    topk: pl.DataFrame | None = None,
    traffic: dict[str, float] | None = None,
) -> list[Record]:
    """One record per system of ``scores`` (``system, query_id, value``), not yet written
    (:func:`commit_release` writes a release's groups of them as one step), each with the
    ``traffic`` shares in force and, given ``strata``, the strata definition. ``binary``
    (default: from the measure's definition and the qrels) is stored with each record."""
    check_same_queries(store, qrels)
    if binary is None:
        from goldset_tui.eval.measure_kind import is_binary_measure

        binary = is_binary_measure(measure, qrels, scores.get_column("query_id").unique())
    version = golden_set_version(read_manifest(store), qrels)
    definition = None
    if strata is not None and strata.height:
        from goldset_tui.drift.definition import strata_definition

        definition = strata_definition(strata)
    return [
        make_record(
            release=release,
            system=system,
            measure=measure,
            version=version,
            scores=scores.filter(pl.col("system") == system),
            strata=strata,
            topk=topk.filter(pl.col("system") == system) if topk is not None else None,
            k=k,
            binary=binary,
            traffic=traffic,
            strata_definition=definition,
        )
        for system in systems
    ]


def not_recorded(release: str, blocked: str = "the store") -> str:
    """The words every failure before a release's commit point ends with, so that `report` and
    `eval` (whose per-query scores are written before any recording starts) say it alike."""
    return (
        f"release {release!r} was NOT recorded (nothing of it is in the history); run the same "
        f"command again once {blocked} can be written"
    )


def commit_release(store: Path, release: str, groups: Sequence[Sequence[Record]]) -> list[str]:
    """Write every record of every group (a measure's systems) as one step: the whole release or
    none of it (history.records.record_all); the lines to print, group by group.

    A failure says what the history holds: nothing of the release, or all of it with some files
    left for the next recording to write."""
    recs = [rec for group in groups for rec in group]
    try:
        wrote = iter(record_all(store, recs))
    except ReleaseNotRecorded as exc:
        raise InputError(
            exc.filename or store,
            f"{exc.strerror}: {not_recorded(release)}",
        ) from None
    except StoreLockedError as exc:  # the manifest's lock not released in time
        raise StoreLockedError(f"{exc}; release {release!r} was NOT recorded") from None
    except ReleaseUnfinished as exc:
        raise InputError(
            exc.filename or store,
            f"{exc.strerror}: release {release!r} IS recorded whole (`goldset history` shows "
            "all of it), but some of its files are not written yet; the next --release into "
            "this store writes them",
        ) from None
    lines = []
    for group in groups:
        for rec in group:
            what = "recorded" if next(wrote) else "already recorded (same scores, nothing written)"
            lines.append(
                f"history: {what}: release {release!r}, system {rec.system!r}, {rec.measure}, "
                f"golden set version {rec.version['id']}"
            )
        lines += regression_lines(store, group)
    return lines


def check_same_queries(store: Path, qrels: pl.DataFrame) -> None:
    """Refuse to record, into a store, runs scored on none of its pool's queries: a --store of
    another golden set would otherwise get a history its version says was scored on its pool."""
    pool = store_pool(store)
    frame = _pool_table(pool)
    if frame is None or qrels.height == 0:
        return  # the pool file is gone or unreadable: nothing to check against
    queries = set(frame.get_column("query_id").cast(pl.String).unique().to_list())
    scored = set(qrels.get_column("query_id").cast(pl.String).unique().to_list())
    if not scored & queries:
        raise InputError(
            store,
            f"none of the {len(scored)} queries these runs were scored on is in this store's pool"
            f" ({pool}, {len(queries)} queries): is it the store of another golden set?",
        )


def _pool_table(pool: str | None) -> pl.DataFrame | None:
    """The pool file read as a table with its ``query_id`` column, or None when it is gone or
    unreadable: what a recording checks against the pool, or takes from it, is left out then (the
    recording is not refused for it)."""
    from goldset_tui.io.tables import read_table

    if pool is None or not Path(pool).is_file():
        return None
    try:
        return read_table(pool, required=["query_id"])
    except InputError:
        return None


def regression_lines(store: Path, recs: Sequence[Record]) -> list[str]:
    """One line per named case and system: does it pass this release?"""
    out = []
    for row in case_status(load_cases(store), recs):
        out.append(
            f"regression case {row['name']!r} (query {row['query_id']}): {row['status']} "
            f"for {row['system']} in {row['release']} ({row['measure']})"
        )
    return out


def case_lines(
    store: Path,
    *,
    measure: str,
    scores: pl.DataFrame,
    systems: Sequence[str],
    label: str,
    binary: bool = False,
) -> list[str]:
    """The named cases' status in a run that is not recorded (``label`` names it); ``binary``
    is the report's (by the measure's definition: an R@k record cannot tell without it)."""
    if not load_cases(store):
        return []
    recs = [
        make_record(
            release=label,
            system=system,
            measure=measure,
            version={},
            scores=scores.filter(pl.col("system") == system),
            binary=binary,
        )
        for system in systems
    ]
    return regression_lines(store, recs)


def store_pool(store: str | Path | None) -> str | None:
    """The pool file a store was made from (for the advice), or None."""
    if store is None or not Path(store).is_dir():
        return None
    try:
        return str(read_manifest(Path(store))["pool"]["path"])
    except InputError:
        return None


def store_strata(store: Path) -> pl.DataFrame | None:
    """``query_id, stratum`` of the store's pool when the pool file is there and has strata."""
    frame = _pool_table(store_pool(store))
    if frame is None or "stratum" not in frame.columns:
        return None
    return (
        frame.select(pl.col("query_id").cast(pl.String), pl.col("stratum").cast(pl.String))
        .drop_nulls()
        .unique("query_id", keep="first", maintain_order=True)
    )
