"""Bring other stores' judgments of the same pool into one store: ``goldset merge``'s core.

Contract:

- **Same pool only.** Every source must have been made from a pool with the target's sha256 and
  use the same grade scale; anything else is refused before anything is written. A pool file that
  changed on disk since a store was made is reported (judgments are keyed by pair and stay valid).
- **Labellers are unioned**; their manifest tables merged (first session the earliest, last the
  latest; imports unioned, a machine's or a person's; a name that is a machine in one store and a
  person in another is refused).
- **Every event keeps its history and time.** An event is identified by its content (labeller,
  pair, kind, grade, time, seconds, position, note): the same event found in two stores (a store
  merged twice, or a copy) counts once, so merging the same store again changes nothing.
- **A labeller who judged in two places** gets one history, the places interleaved by time (each
  place's own order kept: a running maximum of its times is the merge key), so the latest grade
  counts and undo still cancels the grade before it. Pairs whose standing grades differed between
  the places are returned as conflicts, with the grade that now stands.
- **Crash-safe** (``staging``): the target is either as before or fully merged, whatever moment
  the process is killed at.
- **Labeller locks are respected**: the merge holds the writer lock of every labeller it writes
  and is refused, naming them, if one of them is open for writing in the target right now (a
  judging session or an import). Only those: which labellers a merge writes is found first,
  without locks (a labeller only the target has, or whose events the target has already, is not
  written), so someone judging under another name does not stand in the merge's way.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.errors import InputError, StoreLockedError
from goldset_tui.store import staging
from goldset_tui.store.files import fsync_path, now_iso, sha256_file
from goldset_tui.store.frames import COLUMNS, JUDGMENT_SCHEMA, PAIR, latest
from goldset_tui.store.machine import MACHINE, is_machine
from goldset_tui.store.parts import write_part
from goldset_tui.store.project import Project
from goldset_tui.store.writer import JudgmentWriter
from goldset_tui.text import visible


class MergeFailedError(InputError):
    """Writing failed at the commit step: before the commit point the store's files are as they
    were; after it the store is to be completed on its next open (staging.recover). Saying only
    the errno left the user to guess which."""

    def __init__(self, store: Path, exc: OSError, *, committed: bool) -> None:
        self.reason = f"{exc.filename}: {exc.strerror or exc}" if exc.filename else str(exc)
        # The errno's own words: what a file inside a folder that is then removed came to (an
        # atomic write's "IS in place" is not true of the folder a new store was built in).
        self.plain_reason = _plain(exc)
        self.committed = committed
        super().__init__(
            None,
            f"{self.reason}: the merge into {store} is committed, but finishing it stopped there; "
            "the next goldset command that opens the store completes it (nothing merged is lost)"
            if committed
            else f"{self.reason}: the merge failed before its commit point; {store} is as it was "
            "(nothing merged)",
        )


def _plain(exc: OSError) -> str:
    """``FILE: the errno's own words``, nothing an inner step added to them."""
    plain = os.strerror(exc.errno) if exc.errno else str(exc.strerror or exc)
    return f"{exc.filename}: {plain}" if exc.filename else plain


# What makes two records the same event (seq is each store's own numbering, so not in it).
IDENTITY = [c for c in COLUMNS if c != "seq"]


@dataclass(frozen=True)
class Conflict:
    labeller: str
    query_id: str
    doc_id: str
    grades: tuple[tuple[str, int, str], ...]  # (store, grade, time) of each place, target first
    kept: int | None  # the grade in force after the merge


@dataclass
class MergeResult:
    added: dict[str, int] = field(default_factory=dict)  # labeller -> events new to the target
    new_labellers: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(self.added.values())


def merge_histories(histories: list[pl.DataFrame]) -> tuple[pl.DataFrame, int]:
    """One labeller's events from several places (the target first), as one history in seq
    order 1..n; and how many events came from places after the first and were new."""
    frames = [
        h.select(COLUMNS).cast(JUDGMENT_SCHEMA).sort("seq").with_columns(_origin=pl.lit(i))
        for i, h in enumerate(histories)
    ]
    events = pl.concat(frames)
    # The k-th copy of an event in one place matches the k-th copy in another: a store merged
    # twice adds nothing, and two genuinely repeated events in one place stay two.
    events = events.with_columns(_copy=pl.int_range(pl.len()).over(["_origin", *IDENTITY]))
    events = events.unique([*IDENTITY, "_copy"], keep="first", maintain_order=True)
    added = events.filter(pl.col("_origin") > 0).height
    # Interleave by time, keeping each place's order: sort by the running maximum of its times.
    events = (
        events.with_columns(_t=pl.col("time").rank("dense"))
        .with_columns(_at=pl.col("_t").cum_max().over("_origin"))
        .sort(["_at", "_origin", "seq"], maintain_order=True)
        .with_columns(seq=pl.int_range(1, pl.len() + 1, dtype=pl.Int64))
    )
    return events.select(COLUMNS), added


def _conflicts(
    labeller: str, names: list[str], histories: list[pl.DataFrame], merged: pl.DataFrame
) -> list[Conflict]:
    standing = [
        latest(h.select(COLUMNS).cast(JUDGMENT_SCHEMA).sort("seq"))
        .select(*PAIR, "grade", "time")
        .with_columns(_place=pl.lit(name))
        for name, h in zip(names, histories, strict=True)
        if h.height
    ]
    if len(standing) < 2:
        return []
    every = pl.concat(standing)
    differing = every.filter(pl.col("grade").n_unique().over(PAIR) > 1)
    if differing.height == 0:
        return []
    kept = {
        (r["query_id"], r["doc_id"]): r["grade"]
        for r in latest(merged).select("query_id", "doc_id", "grade").iter_rows(named=True)
    }
    out = []
    for (qid, did), group in differing.group_by(["query_id", "doc_id"], maintain_order=True):
        grades = tuple((r["_place"], r["grade"], r["time"]) for r in group.iter_rows(named=True))
        out.append(Conflict(labeller, str(qid), str(did), grades, kept.get((qid, did))))
    return sorted(out, key=lambda c: (c.query_id, c.doc_id))


def _check_source(target: Project, source: Project) -> None:
    if source.path.resolve() == target.path.resolve():
        raise InputError(source.path, "is the target store itself")
    if source.pool_sha256 != target.pool_sha256:
        raise InputError(
            source.path,
            f"judges a different pool (sha256 {source.pool_sha256[:12]}..., {source.pool_path}) "
            f"from the target's (sha256 {target.pool_sha256[:12]}..., {target.pool_path}); "
            "only stores of the same pool merge",
        )
    if source.scale.to_toml() != target.scale.to_toml():
        raise InputError(
            source.path, f"uses the grade scale {source.scale.to_toml()}, the target another"
        )


def _pool_notes(stores: list[Project]) -> list[str]:
    """A pool file changed since its store was made: reported, not refused (the judged pairs stay
    keyed by query and document id, so they keep their meaning); a pool file that is gone cannot
    be checked and is left alone."""
    notes = []
    seen: set[Path] = set()
    for store in stores:
        if store.pool_path in seen or not store.pool_path.is_file():
            continue
        seen.add(store.pool_path)
        warning = store.pool_warning(sha256_file(store.pool_path))
        if warning:
            notes.append(f"{store.path}: {warning}")
    return notes


def _merged_entry(safe: str, entries: list[dict[str, Any]], where: Path) -> dict[str, Any]:
    """One labeller's manifest table from every place it appears in (the target's first)."""
    machines = {is_machine(e) for e in entries}
    if len(machines) > 1:
        raise InputError(
            where,
            f"labeller {visible(entries[0]['name'])!r} is a machine in one store and a person in "
            "another; rename one before merging",
            column=f"labellers.{safe}",
        )
    entry = dict(entries[0])
    firsts = [e["first"] for e in entries if isinstance(e.get("first"), str)]
    lasts = [e["last"] for e in entries if isinstance(e.get("last"), str)]
    if firsts:
        entry["first"] = min(firsts)
    if lasts:
        entry["last"] = max(lasts)
    imports: list[dict[str, Any]] = []  # a machine's, or a person's (goldset import --human)
    for e in entries:
        for item in e.get("imports", []):
            if item not in imports:
                imports.append(item)
    if machines == {True}:
        entry[MACHINE] = True
    if imports:
        entry["imports"] = imports
    return entry


def _lock_labellers(target: Project, safes: dict[str, str]) -> list[JudgmentWriter]:
    """Hold every written labeller's writer lock (opening folds a crashed session's journal
    into parts, so the whole history is in the parts); refused if one is judging right now."""
    writers: list[JudgmentWriter] = []
    busy: list[str] = []
    for safe, name in sorted(safes.items()):
        journal = target.path / "journal" / f"{safe}.jsonl"
        try:
            writers.append(
                JudgmentWriter(
                    name,
                    journal_path=journal,
                    parts_dir=target.path / "judgments" / safe,
                    scale=target.scale,
                )
            )
        except StoreLockedError as exc:
            busy.append(f"{visible(name)!r} ({str(exc).split('by ', 1)[-1].split(';')[0]})")
    if busy:
        for writer in writers:
            writer.close()
        one = len(busy) == 1
        raise StoreLockedError(
            f"{target.path}: this merge writes the judgments of {', '.join(busy)}, and "
            f"{'that labeller is' if one else 'those labellers are'} open for writing in this "
            "store right now (a judging session or an import); merge when "
            f"{'it is' if one else 'they are'} closed (nothing was changed)"
        )
    return writers


def merge_stores(into: str | Path, sources: list[str | Path]) -> MergeResult:
    """Merge every source store into the store at ``into``. A missing (or empty) ``into`` becomes
    a new store of the first source's pool, made in a folder beside it and renamed into place
    when complete, so a crash never leaves a half-made store there."""
    target_path = Path(into)
    if not sources:
        raise InputError(None, "give at least one store to merge")
    others = [Project.open(Path(s)) for s in sources]
    if not (target_path / "manifest.toml").exists() and (
        not target_path.exists() or (target_path.is_dir() and not any(target_path.iterdir()))
    ):
        return _merge_into_new(target_path, others)
    target = Project.open(target_path)  # finishes or undoes an interrupted merge first
    for source in others:
        _check_source(target, source)
    with staging.merge_lock(target.path) as held:
        if not held:
            staging.refuse_if_merging(target.path)
        staging.discard(target.path)  # an uncommitted leftover (recover() ran in open)
        return _merge_locked(target, others)


def _merge_into_new(path: Path, others: list[Project]) -> MergeResult:
    first = others[0]
    if not path.parent.is_dir():
        raise InputError(path, "cannot make a store here: its folder does not exist")
    staging.sweep_new_store_leftovers(path)  # the building folders of killed merges
    building = staging.building_dir(path)
    if building.exists():
        shutil.rmtree(building)
    try:
        target = Project.create(
            building,
            pool_path=first.pool_path,
            pool_sha256=first.pool_sha256,
            scale=first.scale,
            guidelines=first.guidelines,
            name=first.name,
            corpus=first.manifest.get("corpus"),  # where an ids-only pool's texts are
        )
        for source in others:
            _check_source(target, source)
        with staging.merge_lock(target.path):
            result = _merge_locked(target, others)
        result.new_labellers = sorted(name for name, n in result.added.items() if n)
        if path.exists():
            path.rmdir()  # empty (checked by the caller); rename needs the name free
        os.rename(building, path)
    except BaseException as exc:
        # Nothing of a failed merge into a new store is left: the sources are untouched, and
        # the half-built store in its hidden folder would otherwise stay there, unseen.
        shutil.rmtree(building, ignore_errors=True)
        if isinstance(exc, MergeFailedError | OSError):  # said of the folder just removed
            reason = exc.plain_reason if isinstance(exc, MergeFailedError) else _plain(exc)
            raise InputError(
                None, f"{reason}: the merge failed and {path} was not made (nothing changed)"
            ) from None
        raise
    try:
        fsync_path(path.parent)
    except OSError as exc:
        raise _unsynced(path, building, exc) from None
    return result


def _unsynced(path: Path, building: Path, exc: OSError) -> InputError:
    """The new store was renamed into place, then its folder's fsync failed (the rename may not
    survive a power cut). Taken back when it can be (renamed away and removed: an error means
    nothing changed); when that fails too, the error says the store IS there, merged whole."""
    reason = f"{exc.filename}: {exc.strerror or exc}" if exc.filename else str(exc)
    try:
        os.rename(path, building)
    except OSError:
        return InputError(
            None,
            f"{reason}: {path} IS made, with everything merged, but the folder holding it could "
            "not be synced to disk (nor the new store taken back), so a power cut could lose it",
        )
    shutil.rmtree(building, ignore_errors=True)
    return InputError(None, f"{reason}: the merge failed and {path} was not made (nothing changed)")


def _merge_locked(target: Project, others: list[Project]) -> MergeResult:
    result = MergeResult(notes=_pool_notes([target, *others]))
    places = [target, *others]
    entries: dict[str, list[dict[str, Any]]] = {}
    for place in places:
        for safe, entry in place.manifest.get("labellers", {}).items():
            entries.setdefault(safe, []).append(entry)
    names = {safe: str(group[0]["name"]) for safe, group in entries.items()}
    merged_entries = {
        safe: _merged_entry(safe, group, target.path) for safe, group in entries.items()
    }
    # Which labellers this merge writes, found without their locks: only those are locked (and
    # read again under the lock, which is what counts), so a session judging under another name
    # is no reason to refuse.
    result.added = {name: 0 for name in names.values()}
    writes = {safe: name for safe, name in names.items() if _adds(places, name)} | _machine_safes(
        target, others, names
    )
    writers = _lock_labellers(target, writes)
    try:
        staged = staging.staging_dir(target.path)
        swap: list[str] = []
        for safe, name in sorted(writes.items()):
            histories = [
                p.judgments(name, history=True) if name in p.labellers() else _empty()
                for p in places
            ]
            merged, added = merge_histories(histories)
            result.added[name] = added
            if not added:
                continue
            if name not in target.labellers():
                result.new_labellers.append(name)
            where = [str(p.path) for p in places]
            result.conflicts += _conflicts(name, where, histories, merged)
            write_part(staged / "judgments" / safe, merged)
            swap.append(safe)
        machine = _stage_machine_files(target, others, staged)
        if not swap and not machine:
            staging.discard(target.path)
            return result
        labellers = {
            safe: merged_entries[safe]
            for safe in {*swap, *(s for s, _ in machine)}
            if merged_entries[safe] != target.manifest.get("labellers", {}).get(safe)
        }
        record = _record(others, result)
        plan = {"labellers": labellers, "record": record, "swap": swap, "machine": machine}
        try:
            staging.commit(target.path, plan)
            staging.apply(target.path)
        except OSError as exc:
            committed = (staged / staging.COMMIT).exists()
            raise MergeFailedError(target.path, exc, committed=committed) from exc
    finally:
        for writer in writers:
            writer.close()
    target.reload()
    return result


def _adds(places: list[Project], name: str) -> bool:
    """Whether merging adds events to ``name``'s history in the target (``places[0]``)."""
    if not any(name in p.labellers() for p in places[1:]):
        return False  # only the target has it: nothing to add
    histories = [
        p.judgments(name, history=True) if name in p.labellers() else _empty() for p in places
    ]
    return merge_histories(histories)[1] > 0


def _machine_safes(target: Project, others: list[Project], names: dict[str, str]) -> dict[str, str]:
    """The machine labellers whose provenance files the merge copies into the target."""
    safes = {safe for source in others for safe, _ in _machine_files(target, source)}
    return {safe: names[safe] for safe in safes if safe in names}


def _machine_files(target: Project, source: Project) -> list[tuple[str, str]]:
    folder = source.path / MACHINE
    if not folder.is_dir():
        return []
    return [
        (path.parent.name, path.name)
        for path in sorted(folder.glob("*/*.parquet"))
        if not (target.path / MACHINE / path.parent.name / path.name).exists()
    ]


def _stage_machine_files(
    target: Project, others: list[Project], staged: Path
) -> list[tuple[str, str]]:
    """Copy the machine labels' provenance files the target lacks into the staging folder."""
    copied: list[tuple[str, str]] = []
    for source in others:
        for safe, name in _machine_files(target, source):
            if (safe, name) in copied:
                continue
            dest = staged / MACHINE / safe / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source.path / MACHINE / safe / name, dest)
            copied.append((safe, name))
    return copied


def _record(others: list[Project], result: MergeResult) -> dict[str, Any]:
    """The manifest's note of this merge (only written when something changed)."""
    added = {name: n for name, n in result.added.items() if n}
    key = repr(sorted(added.items())) + "|" + "|".join(str(s.path.resolve()) for s in others)
    return {
        "id": hashlib.sha256(f"{now_iso()}|{key}".encode()).hexdigest()[:16],
        "time": now_iso(),
        "stores": [str(s.path.resolve()) for s in others],
        "events": sum(added.values()),
        "conflicts": len(result.conflicts),
    }


def _empty() -> pl.DataFrame:
    return pl.DataFrame(schema=JUDGMENT_SCHEMA)


__all__ = ["Conflict", "MergeFailedError", "MergeResult", "merge_histories", "merge_stores"]
