"""Every evaluation recorded: one JSON file per (release, system, measure) in ``STORE/history/``.

A recurring failure can only be noticed if the failing queries are recorded by id on every run
(docs/background.md#failure-lists). A record keeps the release, the system, the
time, the golden set's version, the measure, every query's score, each query's stratum, the
failing query ids per stratum and each query's top k with grades (for drilling into a query).

Recording is atomic and idempotent. The file is written whole (temporary file, fsync, rename,
fsync of the folder) under the manifest's lock, then the manifest's ``[version]`` is set to the
version the run was scored against. Recording the same release, system and measure again with
the same scores and version is one record (nothing is written, :func:`record` returns False);
with different scores or a different version it is refused: a release's number never changes
after the fact, which is what lets a later release be compared with it. Record the new numbers
under a new release name.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.history.version import Version
from goldset_tui.io.values import loads_json
from goldset_tui.model import NO_STRATUM
from goldset_tui.store.files import atomic_write_bytes, fsync_path, now_iso, remove_stale_tmp
from goldset_tui.store.manifest import manifest_lock, read_manifest, write_manifest

HISTORY_DIR = "history"
FORMAT = 1


@dataclass
class Record:
    release: str
    system: str
    measure: str
    time: str
    version: Version
    binary: bool
    k: int
    scores: dict[str, float]  # query_id -> value
    strata: dict[str, str] = field(default_factory=dict)  # query_id -> stratum
    # query_id -> [[rank, doc_id, grade or None], ...]: the top k as scored
    topk: dict[str, list[list[Any]]] = field(default_factory=dict)
    # The traffic shares in force (stratum -> share) and the strata definition
    # (drift.definition) when the release was recorded; None in records made before they were kept.
    traffic: dict[str, float] | None = None
    strata_definition: dict[str, Any] | None = None

    @property
    def failing(self) -> dict[str, list[str]]:
        """stratum -> query ids scored 0 (the failure lists), sorted."""
        out: dict[str, list[str]] = {}
        for qid, value in sorted(self.scores.items()):
            if value == 0:
                out.setdefault(self.strata.get(qid, NO_STRATUM), []).append(qid)
        return dict(sorted(out.items()))

    def stratum_of(self, query_id: str) -> str:
        return self.strata.get(query_id, NO_STRATUM)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "release": self.release,
            "system": self.system,
            "measure": self.measure,
            "time": self.time,
            "version": self.version,
            "binary": self.binary,
            "k": self.k,
            "scores": self.scores,
            "strata": self.strata,
            "failing": self.failing,
            "topk": self.topk,
        } | {
            k: v
            for k, v in (("traffic", self.traffic), ("strata_definition", self.strata_definition))
            if v is not None
        }

    def same_result(self, other: Record) -> bool:
        return self.scores == other.scores and self.version == other.version


def record_path(store: Path, release: str, system: str, measure: str) -> Path:
    key = "\0".join((release, system, measure)).encode("utf-8")
    return Path(store) / HISTORY_DIR / f"{hashlib.sha256(key).hexdigest()[:20]}.json"


def make_record(
    *,
    release: str,
    system: str,
    measure: str,
    version: Version,
    scores: pl.DataFrame,
    strata: pl.DataFrame | None = None,
    topk: pl.DataFrame | None = None,
    k: int = 10,
    binary: bool | None = None,
    time: str | None = None,
    traffic: dict[str, float] | None = None,
    strata_definition: dict[str, Any] | None = None,
) -> Record:
    """A record from ``scores`` (``query_id, value``), ``strata`` (``query_id, stratum``) and
    ``topk`` (``query_id, rank, doc_id, grade``: this system's rows).

    ``binary`` is what the measure is (``eval.measure_kind``: Success@k yes, nDCG@10 no, R@k
    when each query has one relevant document), never read off the values: a release where
    nDCG@10 is 1.0 on every query is still graded. When None it comes from the measure's name,
    and a measure that needs the qrels to tell (R@k) must be given it."""
    if not release.strip():
        raise InputError(None, "--release must not be empty")
    values = {str(q): float(v) for q, v in scores.select("query_id", "value").iter_rows()}
    bad = [q for q, v in values.items() if not math.isfinite(v)]
    if bad:
        raise InputError(None, f"system {system!r}: query {bad[0]!r} has no finite score")
    kept = set(values)
    strata_map = (
        {str(q): str(s) for q, s in strata.select("query_id", "stratum").iter_rows() if q in kept}
        if strata is not None
        else {}
    )
    tops: dict[str, list[list[Any]]] = {}
    if topk is not None:
        for qid, rank, doc, grade in topk.select("query_id", "rank", "doc_id", "grade").iter_rows():
            tops.setdefault(str(qid), []).append([int(rank), str(doc), grade])
    if binary is None:
        from goldset_tui.eval.measure_kind import binary_by_name

        binary = binary_by_name(measure)
        if binary is None:
            raise ValueError(
                f"{measure}: binary only with one relevant document a query; pass binary"
            )
    return Record(
        release=release,
        system=system,
        measure=measure,
        time=time or now_iso(),
        version=dict(version),
        binary=binary,
        k=k,
        scores=values,
        strata=strata_map,
        topk=tops,
        traffic=traffic,
        strata_definition=strata_definition,
    )


def record(store: Path, rec: Record) -> bool:
    """Write ``rec`` into the store's history; False when the same result is already there.

    Raises InputError when the release, system and measure are recorded with other results."""
    return record_all(store, [rec])[0]


class ReleaseNotRecorded(OSError):
    """Writing failed before a release's commit point: nothing of it is in the history."""


class ReleaseUnfinished(OSError):
    """Writing failed after a release's commit point: the release is recorded whole (its bundle
    reads as its records), but some of its own files are not written yet."""


def record_all(store: Path, recs: Sequence[Record]) -> list[bool]:
    """Write every record of ``recs`` (one release: its systems and measures) as one step; per
    record, False when the same result is already there.

    The commit point is one file, ``history/<id>.release``, holding every new record: written
    whole (temporary file, fsync, rename) before any record's own file. A failure or a kill
    before its rename leaves none of the release; after it, readers take the release from the
    bundle until its files are all written, which the next recording into the store finishes
    (docs/history.md). A record already there with other results refuses the whole release
    before anything is written. OSError before the commit point is ReleaseNotRecorded, after it
    ReleaseUnfinished."""
    store = Path(store)
    read_manifest(store)  # a folder that is not a store is refused before anything is written
    folder = store / HISTORY_DIR
    committed = False
    try:
        with manifest_lock(store):
            remove_stale_tmp(folder)  # a killed write's temporary file, the lock ours
            finish_bundles(store)
            new = [not _already(store, rec) for rec in recs]
            todo = [rec for rec, is_new in zip(recs, new, strict=True) if is_new]
            if not todo:
                return new
            if not folder.is_dir():
                folder.mkdir()
                fsync_path(store)  # the new folder's entry survives a power cut too
            bundle = _bundle_path(store, todo)
            body = json.dumps(
                [r.to_json() for r in todo], indent=1, sort_keys=True, allow_nan=False
            )
            try:
                atomic_write_bytes(bundle, body.encode("utf-8"))
            except OSError:
                committed = bundle.exists()  # renamed, then the folder's fsync failed: committed
                raise
            committed = True
            _finish(store, bundle, todo)
    except OSError as exc:
        if committed:
            raise ReleaseUnfinished(exc.errno, exc.strerror or str(exc), exc.filename) from exc
        raise ReleaseNotRecorded(exc.errno, exc.strerror or str(exc), exc.filename) from exc
    return new


BUNDLE_SUFFIX = ".release"


def _bundle_path(store: Path, recs: Sequence[Record]) -> Path:
    keys = "\0".join(record_path(store, r.release, r.system, r.measure).name for r in recs)
    return store / HISTORY_DIR / f"{hashlib.sha256(keys.encode()).hexdigest()[:20]}{BUNDLE_SUFFIX}"


def _already(store: Path, rec: Record) -> bool:
    path = record_path(store, rec.release, rec.system, rec.measure)
    if not path.exists():
        return False
    old = read_record(path)
    if old.same_result(rec):
        return True
    raise InputError(
        path,
        f"release {rec.release!r} of {rec.system!r} ({rec.measure}) was recorded at "
        f"{old.time} with other results; a release's numbers never change: record "
        "these under a new release name (nothing of this release was recorded)",
    )


def _finish(store: Path, bundle: Path, recs: Sequence[Record]) -> None:
    """A committed release's own files, the manifest's version, then the bundle removed."""
    for rec in recs:
        path = record_path(store, rec.release, rec.system, rec.measure)
        if not path.exists():
            body = json.dumps(rec.to_json(), indent=1, sort_keys=True, allow_nan=False)
            atomic_write_bytes(path, body.encode("utf-8"))
    if recs:
        manifest = read_manifest(store)
        manifest["version"] = recs[-1].version
        write_manifest(store, manifest)
    bundle.unlink()
    fsync_path(bundle.parent)


def finish_bundles(store: Path) -> None:
    """Finish every release a failed or killed recording committed (under the manifest's lock)."""
    folder = Path(store) / HISTORY_DIR
    for bundle in sorted(folder.glob("*" + BUNDLE_SUFFIX)) if folder.is_dir() else []:
        _finish(store, bundle, read_bundle(bundle))


def read_bundle(path: Path) -> list[Record]:
    """The records of a committed release's bundle, checked as record files are."""
    data = _load(path, "unreadable release bundle")
    if not isinstance(data, list):
        raise InputError(path, "not a goldset release bundle (a list of history records)")
    return [_parse(item, path) for item in data]


def _field(data: Mapping[str, Any], name: str, kind: type, path: Path) -> Any:
    value = data.get(name)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise InputError(path, f"history record lacks a valid {name!r}", column=name)
    if isinstance(value, str) and not value.strip():  # as make_record refuses a blank --release
        raise InputError(path, f"history record has an empty {name!r}", column=name)
    return value


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def read_record(path: Path) -> Record:
    """One record, checked; a damaged or hand-edited file is one line naming it."""
    return _parse(_load(path, "unreadable history record"), path)


def _load(path: Path, what: str) -> Any:
    try:
        return loads_json(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(path, f"{what}: {exc}", line=exc.lineno) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"{what}: {exc}") from None


def _parse(data: Any, path: Path) -> Record:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(path, "not a goldset history record (format 1)")
    scores = _field(data, "scores", dict, path)
    if not all(_finite(v) for v in scores.values()):
        # json reads NaN and Infinity: a hand edit must not turn a change into "+nan ... *".
        raise InputError(path, "every score must be a finite number", column="scores")
    topk = _field(data, "topk", dict, path)
    for rows in topk.values():
        if not isinstance(rows, list) or not all(_top_row(r) for r in rows):
            raise InputError(path, "topk rows must be [rank, doc_id, grade or null]", column="topk")
    version = _field(data, "version", dict, path)
    _check_version(version, path)
    return Record(
        release=_field(data, "release", str, path),
        system=_field(data, "system", str, path),
        measure=_field(data, "measure", str, path),
        time=_field(data, "time", str, path),
        version=version,
        binary=_field(data, "binary", bool, path),
        k=_field(data, "k", int, path),
        scores={str(q): float(v) for q, v in scores.items()},
        strata={str(q): str(s) for q, s in _field(data, "strata", dict, path).items()},
        topk=topk,
        traffic=_traffic(data, path),
        strata_definition=_definition(data, path),
    )


def _traffic(data: Mapping[str, Any], path: Path) -> dict[str, float] | None:
    """The shares in force at the release, or None (a record made before they were kept)."""
    value = data.get("traffic")
    if value is None:
        return None
    if not isinstance(value, dict) or not all(_finite(v) and v >= 0 for v in value.values()):
        raise InputError(path, "traffic must map strata to shares >= 0", column="traffic")
    return {str(s): float(v) for s, v in value.items()}


def _definition(data: Mapping[str, Any], path: Path) -> dict[str, Any] | None:
    value = data.get("strata_definition")
    if value is None:
        return None
    strata = value.get("strata") if isinstance(value, dict) else None
    if not isinstance(strata, list) or not all(
        isinstance(s, dict) and isinstance(s.get("name"), str) for s in strata
    ):
        raise InputError(
            path, "strata_definition must list its strata by name", column="strata_definition"
        )
    return dict(value)


def _top_row(row: Any) -> bool:
    return (
        isinstance(row, list)
        and len(row) == 3
        and isinstance(row[0], int)
        and not isinstance(row[0], bool)
        and isinstance(row[1], str)
        and (row[2] is None or (isinstance(row[2], int) and not isinstance(row[2], bool)))
    )


# The version's fields the history reads, and the type each must have.
_VERSION_TYPES: dict[str, tuple[type, ...]] = {
    "id": (str,),
    "pool_sha256": (str,),
    "qrels_sha256": (str,),
    "guidelines_sha256": (str,),
    "corpus_sha256": (str,),
    "goldset": (str,),
    "judgments": (int,),
    "near_duplicate_threshold": (int, float),
    "pool_extensions": (list,),
    "machine_labels": (dict,),
    "synthetic_queries": (dict,),
}


def _check_version(version: Mapping[str, Any], path: Path) -> None:
    for key, types in _VERSION_TYPES.items():
        value = version.get(key)
        if value is not None and (not isinstance(value, types) or isinstance(value, bool)):
            raise InputError(path, f"the version's {key!r} has the wrong type", column="version")
    if not all(isinstance(e, str) for e in version.get("pool_extensions", [])):
        raise InputError(path, "the version's pool_extensions must be run names", column="version")


def load_records(store: Path) -> list[Record]:
    """Every record of the store, oldest first (by time, then release, system, measure)."""
    folder = Path(store) / HISTORY_DIR
    if not folder.is_dir():
        return []
    records = {p.name: read_record(p) for p in sorted(folder.glob("*.json"))}
    for bundle in sorted(folder.glob("*" + BUNDLE_SUFFIX)):
        # A release committed whole whose own files are not all written yet (docs/history.md).
        for rec in read_bundle(bundle):
            records.setdefault(record_path(store, rec.release, rec.system, rec.measure).name, rec)
    return sorted(records.values(), key=lambda r: (r.time, r.release, r.system, r.measure))
