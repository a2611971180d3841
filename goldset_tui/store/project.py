"""A project folder: manifest, per-labeller journals, compacted judgments.

    STORE/manifest.toml                         name, created, [pool] path + sha256, [scale],
                                                guidelines, [labellers.<safe>] name/first/last,
                                                and any table other parts add (kept intact)
    STORE/journal/<safe>.jsonl                  judgments not yet compacted (one JSON per line)
    STORE/journal/<safe>.jsonl.lock             the labeller's writer lock (flock)
    STORE/judgments/<safe>/part-<a>-<b>.parquet compacted judgments, seq a..b

Judgments stay keyed by (query_id, doc_id), so they survive a pool file that changed; the
manifest's sha256 lets the caller report that it did.
"""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.errors import InputError, StoreLockedError
from goldset_tui.io.trec import QRELS_SCHEMA
from goldset_tui.model import DEFAULT_GUIDELINES, GradeScale
from goldset_tui.store.checks import check_layout
from goldset_tui.store.files import TMP_PREFIX, now_iso, remove_dead_tmp, safe_name, sha256_file
from goldset_tui.store.frames import JUDGMENT_SCHEMA, empty_judgments, latest, sort_pairs
from goldset_tui.store.half_imports import roll_back_half_imports
from goldset_tui.store.manifest import (
    FORMAT,
    MANIFEST,
    manifest_lock,
    manifest_path,
    read_manifest,
    update_manifest,
    write_manifest,
)
from goldset_tui.store.places import default_store_for, find_stores, refuse_busy_folder
from goldset_tui.store.prior import checked_prior
from goldset_tui.store.reading import labeller_history, labeller_summary
from goldset_tui.store.registry import remember
from goldset_tui.store.staging import naming_the_merge, recover, sweep_new_store_leftovers
from goldset_tui.store.writer import JudgmentWriter
from goldset_tui.text import visible

__all__ = [
    "Project",
    "JudgmentWriter",
    "default_store_for",
    "find_stores",
    "refuse_busy_folder",
    "safe_name",
    "sha256_file",
]

# Why a store may be readable but not writable: a read-only mount, permissions, a full disk.
_CANNOT_WRITE = {errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT}

# Tables the store itself maintains; update_manifest() must not replace them wholesale.
_RESERVED_TABLES = {"format", "labellers", "created"}


class Project:
    """An open store. Cheap to open; reads are lock-free and see every durable judgment."""

    def __init__(self, path: Path, manifest: dict[str, Any]):
        self.path = Path(path)
        self.manifest = manifest
        self.warnings: list[str] = []  # e.g. a torn journal line dropped on replay
        # Per labeller: answers of an interrupted `judge --machine` run not in its labels yet.
        self.unstored: dict[str, str] = {}
        self._writers: dict[str, JudgmentWriter] = {}

    # --- opening ------------------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        path: str | Path,
        *,
        pool_path: str | Path,
        pool_sha256: str,
        scale: GradeScale | None = None,
        guidelines: str = DEFAULT_GUIDELINES,
        name: str | None = None,
        corpus: dict[str, str] | None = None,  # [corpus]: manifest.corpus_table(FILE)
    ) -> Project:
        store = Path(path)
        if store.exists() and not store.is_dir():
            raise InputError(store, "exists and is not a folder; cannot make a store there")
        # Checked before anything is created: a wrong --store must leave the folder untouched.
        refuse_busy_folder(store)
        store.mkdir(parents=True, exist_ok=True)
        with manifest_lock(store):
            refuse_busy_folder(store)
            # Under the lock, so no live creation is writing it: a temporary manifest here was
            # left by one that was killed.
            for stray in store.glob(f"{TMP_PREFIX}{MANIFEST}.*"):
                stray.unlink(missing_ok=True)
            manifest = {
                "format": FORMAT,
                "name": name or Path(pool_path).stem,
                "created": now_iso(),
                "guidelines": guidelines,
                "pool": {
                    "path": str(Path(pool_path).expanduser().resolve()),
                    "sha256": pool_sha256,
                },
                "scale": (scale or GradeScale()).to_toml(),
                "labellers": {},
            }
            if corpus is not None:
                manifest["corpus"] = corpus
            write_manifest(store, manifest)
        remember(store)  # found again by `goldset judge POOL` and home, wherever it is
        return cls(store, manifest)

    @classmethod
    def open(cls, path: str | Path) -> Project:
        store = Path(path)
        recover(store)  # a merge a crash interrupted is finished or undone before any read
        sweep_new_store_leftovers(store)  # a killed `merge --into` of this folder's building copy
        manifest = read_manifest(store)
        check_layout(store, manifest)
        # What a killed writer of the manifest left (its process gone): a live one's stays.
        remove_dead_tmp(manifest_path(store))
        manifest = roll_back_half_imports(store, manifest)  # an import that stopped half way
        remember(store)
        project = cls(store, manifest)
        project._say_unstored()
        return project

    def _say_unstored(self) -> None:
        """Answers a killed machine judge kept but never stored: said, never lost from sight
        (store/answers.py, "a machine judge's run in progress")."""
        from goldset_tui.store.answers import unstored_answers

        def grades(labeller: str) -> dict[tuple[str, str], int] | None:
            if labeller not in self.labellers():
                return None
            return {(q, d): g for q, d, g in self.qrels(labeller).iter_rows()}

        self.unstored = unstored_answers(self.path, self.scale, grades)
        self.warnings += list(self.unstored.values())

    @classmethod
    def open_or_create(
        cls, path: str | Path, *, pool_path: str | Path, pool_sha256: str, **kw: Any
    ) -> Project:
        store = Path(path)
        if manifest_path(store).exists():
            return cls.open(store)
        try:
            return cls.create(store, pool_path=pool_path, pool_sha256=pool_sha256, **kw)
        except InputError:
            if manifest_path(store).exists():  # another process created it a moment ago
                return cls.open(store)
            raise

    def reload(self) -> None:
        self.manifest = read_manifest(self.path)

    # --- manifest -----------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return str(self.manifest.get("name", self.path.name))

    @property
    def scale(self) -> GradeScale:
        return GradeScale.from_toml(self.manifest["scale"])

    @property
    def guidelines(self) -> str:
        return str(self.manifest.get("guidelines", DEFAULT_GUIDELINES))

    @property
    def pool_path(self) -> Path:
        return Path(self.manifest["pool"]["path"])

    @property
    def pool_sha256(self) -> str:
        return str(self.manifest["pool"]["sha256"])

    def pool_changed(self, current_sha256: str) -> bool:
        """True when the pool file's bytes differ from the ones the store was made from."""
        return current_sha256 != self.pool_sha256

    def pool_warning(self, current_sha256: str, current_path: Path | None = None) -> str | None:
        """The sentence to show when the pool changed since the store was made, else None.

        ``current_path``: the pool being judged; when it is another file than the store's (the
        pairs ``goldset validate`` chose, say), the sentence says so instead of calling the
        store's own pool changed."""
        if not self.pool_changed(current_sha256):
            return None
        if current_path is not None and not _same_file(current_path, self.pool_path):
            return (
                f"judging {current_path}, not the pool this store was made from "
                f"({self.pool_path}); judgments are kept by (query_id, doc_id), so they count "
                "for the store wherever they were made"
            )
        return (
            f"the pool file {self.pool_path} changed since this store was made (sha256 "
            f"{self.pool_sha256[:12]}... then, {current_sha256[:12]}... now); judgments are kept by "
            "(query_id, doc_id), so they still apply to the queries and documents that remain"
        )

    def update_manifest(self, **tables: Any) -> None:
        """Set top-level manifest entries (e.g. ``assignment={"overlap": 0.2, "seed": 7}``),
        atomically, keeping every other table as it is on disk."""
        reserved = _RESERVED_TABLES & set(tables)
        if reserved:
            raise ValueError(f"the store maintains {', '.join(sorted(reserved))} itself")

        def change(data: dict[str, Any]) -> None:
            data.update(tables)

        try:
            self.manifest = update_manifest(self.path, change)
        except TypeError as exc:  # tomli-w refuses None and other non-TOML values
            raise ValueError(f"manifest values must be TOML values: {exc}") from None

    # --- labellers ----------------------------------------------------------------------------
    def labellers(self) -> list[str]:
        """Names of every labeller that has opened a writer on this store, sorted."""
        self.reload()
        return sorted(entry["name"] for entry in self.manifest.get("labellers", {}).values())

    def _safe(self, labeller: str) -> str:
        try:
            return safe_name(labeller)
        except ValueError as exc:
            raise InputError(self.path, str(exc), column="labeller") from None

    def labeller_paths(self, labeller: str) -> tuple[Path, Path]:
        """(journal file, folder of Parquet parts) of a labeller."""
        safe = self._safe(labeller)
        return self.path / "journal" / f"{safe}.jsonl", self.path / "judgments" / safe

    def _register(self, labeller: str) -> None:
        safe = self._safe(labeller)

        def change(data: dict[str, Any]) -> None:
            entries = data.setdefault("labellers", {})
            entry = entries.get(safe)
            if entry is None:
                entries[safe] = {"name": labeller, "first": now_iso()}
            elif entry["name"] != labeller:
                raise InputError(self.path, f"labeller {labeller!r} clashes with {entry['name']!r}")

        known = self.manifest.get("labellers", {}).get(safe)
        if known is not None and known.get("name") == labeller:
            return  # already registered: nothing to write (a full disk must not stop a session)
        self.manifest = update_manifest(self.path, change)

    def _touch_labeller(self, labeller: str) -> None:
        safe = self._safe(labeller)

        def change(data: dict[str, Any]) -> None:
            data.setdefault("labellers", {}).setdefault(
                safe, {"name": labeller, "first": now_iso()}
            )["last"] = now_iso()

        self.manifest = update_manifest(self.path, change)

    def _forget_writer(self, writer: JudgmentWriter) -> None:
        if self._writers.get(writer.labeller) is writer:
            del self._writers[writer.labeller]

    def _open_writer(self, labeller: str) -> JudgmentWriter:
        journal_path, parts_dir = self.labeller_paths(labeller)
        return JudgmentWriter(
            labeller,
            journal_path=journal_path,
            parts_dir=parts_dir,
            scale=self.scale,
            on_wrote=self._touch_labeller,
            on_closed=self._forget_writer,
        )

    def _known(self, labeller: str) -> None:
        names = self.labellers()
        if labeller not in names:
            have = ", ".join(repr(visible(n)) for n in names) or "none yet"
            pending = f"; {self.unstored[labeller]}" if labeller in self.unstored else ""
            raise InputError(
                self.path,
                f"no labeller {visible(labeller)!r} in this store (labellers: {have}){pending}",
            )

    # --- writing ------------------------------------------------------------------------------
    def writer(self, labeller: str, *, register: bool = True) -> JudgmentWriter:
        """Open the labeller's writer; StoreLockedError if another session holds it, InputError
        naming the file if the store cannot be written (it can still be read). ``register=False``
        leaves the manifest alone: the caller enters the name itself (a machine import marks it
        a machine in the same write, so a kill never leaves it looking like a person's)."""
        try:
            if register:
                self._register(labeller)
            writer = self._open_writer(labeller)
        except StoreLockedError as exc:  # held by a merge, not by a session: say so
            raise naming_the_merge(self.path, self.labeller_paths(labeller)[0], exc) from None
        except OSError as exc:
            if exc.errno not in _CANNOT_WRITE:
                raise
            raise InputError(
                exc.filename or self.path,
                f"cannot write here ({exc.strerror}): the store can be read (goldset qrels, "
                "report) but not judged until that is fixed",
            ) from exc
        self.warnings += writer.warnings
        self._writers[labeller] = writer
        return writer

    def import_prior(self, frame: pl.DataFrame, labeller: str = "prior") -> int:
        """Store prior grades (``query_id``, ``doc_id``, ``grade``; optional ``time``, ``note``) as
        judgments of ``labeller``. Only grades that differ from what the labeller already has are
        written, so importing the same pool again adds nothing. Returns how many were written."""
        prior = checked_prior(frame, self.scale, self.pool_path)  # InputError naming the row
        return self.add_grades(labeller, prior) if prior.height else 0

    def add_grades(self, labeller: str, frame: pl.DataFrame) -> int:
        """Write the grades of ``frame`` (``query_id``, ``doc_id``, ``grade``, ``time`` (null:
        now), ``note``) that differ from what ``labeller`` already has, as one durable batch;
        returns how many were written. Importing the same grades again writes nothing."""
        have = (
            self.judgments(labeller).select("query_id", "doc_id", "grade")
            if labeller in self.labellers()
            else pl.DataFrame(schema=QRELS_SCHEMA)
        )
        new = frame.join(
            have, on=["query_id", "doc_id", "grade"], how="anti", maintain_order="left"
        )
        if new.height == 0:
            return 0
        batch = new.select(
            pl.lit(labeller).alias("labeller"),
            "query_id",
            "doc_id",
            "grade",
            pl.col("time").fill_null(now_iso()),
            pl.lit(None, pl.Float64).alias("seconds"),
            pl.lit(None, pl.Int64).alias("position"),
            "note",
            pl.lit("judge").alias("kind"),
        )
        with self.writer(labeller) as writer:
            return writer.write_batch(batch)

    def compact(self, labeller: str | None = None) -> None:
        """Fold journals into Parquet parts. A labeller whose writer is open in another process is
        skipped when compacting everyone (that writer compacts its own journal), and raises
        StoreLockedError when asked for by name."""
        names = [labeller] if labeller is not None else self.labellers()
        for name in names:
            if name in self._writers:
                self._writers[name].compact()
                continue
            try:
                with self._open_writer(name):
                    pass  # opening folds a leftover journal in; closing compacts
            except StoreLockedError:
                if labeller is not None:
                    raise

    # --- reading ------------------------------------------------------------------------------
    def _history_of(self, labeller: str) -> pl.DataFrame:
        journal_path, parts_dir = self.labeller_paths(labeller)
        events, warnings = labeller_history(
            journal_path, parts_dir, scale=self.scale, labeller=labeller
        )
        self.warnings += [w for w in warnings if w not in self.warnings]
        return events

    def judgments(self, labeller: str | None = None, *, history: bool = False) -> pl.DataFrame:
        """Latest judgment per (labeller, query_id, doc_id), or every event with ``history``.

        Rows come by labeller, then in the order they were recorded (``seq``); qrels() sorts by
        pair.
        """
        if labeller is not None:
            self._known(labeller)
        names = [labeller] if labeller is not None else self.labellers()
        frames = [self._history_of(name) for name in names]
        events = pl.concat(frames) if frames else empty_judgments()
        events = events.select(list(JUDGMENT_SCHEMA)).cast(JUDGMENT_SCHEMA)
        if history:
            return events
        return latest(events)

    def summary(self) -> pl.DataFrame:
        """Per labeller: ``judged`` pairs with a grade in force, ``events`` recorded, ``first`` and
        ``last`` session times from the manifest (for the home screen's progress). ``last`` is
        the later of the manifest's and the labeller's last recorded event: a session killed
        (SIGKILL, a dropped SSH link) never wrote its end, yet its grades say when it worked."""
        history = self.judgments(history=True)  # read once: the grades in force are its latest()
        return labeller_summary(history, self.manifest.get("labellers", {}))

    def qrels(self, labeller: str | None = None) -> pl.DataFrame:
        """``query_id, doc_id, grade`` of one labeller, sorted (numeric ids in numeric order).

        Without ``labeller`` the store must have at most one labeller with judgments.
        """
        current = self.judgments(labeller)
        if labeller is None:
            judged = current["labeller"].unique().sort().to_list()
            if len(judged) > 1:
                raise InputError(
                    self.path,
                    f"several labellers ({', '.join(map(repr, judged))}): choose one with"
                    " --labeller (the adjudicated set: goldset qrels --consensus)",
                )
        return sort_pairs(current.select("query_id", "doc_id", "grade"))


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:  # the store's pool moved or was removed: compare the paths as written
        return a.resolve() == b.resolve()
