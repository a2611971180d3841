"""Machine judges in a store: labellers whose grades came from a file, not from a person.

A machine labeller is an ordinary labeller (journal-free: its grades arrive as one Parquet part
through :meth:`JudgmentWriter.write_batch`, the store's durable path) whose manifest table says
so::

    [labellers.llm]
    name = "llm"
    first = "..."
    machine = true
    model = "gpt-x"                       # when given
    imports = [{file = "...", sha256 = "...", model = "...", time = "...", labels = 120, written = 118}]

Its labels keep their provenance: the import's file sha256 and model in the manifest, and every
label's confidence and rationale in ``STORE/machine/<safe>/<sha256[:16]>.parquet``; the rationale
is also the judgment's note.

Contract: :func:`import_machine` writes nothing unless the whole file passed the checks of
:func:`goldset_tui.io.machine.read_machine_labels`. Importing a file whose sha256 this labeller
already imported (and whose grades landed) writes nothing and says so (``ImportResult.already``);
a new file writes only the pairs whose grade differs from the labeller's current one. A human
labeller's name cannot be reused for a machine, nor a machine's by ``goldset judge``.

**All or nothing, SIGKILL-safe**, in the human import's order, under the labeller's writer lock:
the provenance file (alone, a file no record names), then the machine mark and the import's record
in one atomic manifest write, then every grade as one Parquet part (one atomic rename). Killed
between the last two, the record links no grade (each grade carries its record's ``time`` and no
seconds; ``written`` says how many): :func:`landed_imports` leaves it out for every reader, the
next open of the store takes a new name's entry, record and provenance file back out
(:mod:`goldset_tui.store.half_imports`; a failed import does so at once), and the next import of
a known name drops the record. Grades never sit in the store without their record.

Who reads the mark: :func:`machine_labellers` (consensus leaves them out unless asked, the home
screen lists no judging row for them, agreement reports them under ``machine``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from goldset_tui.errors import InputError, StoreLockedError
from goldset_tui.io.machine import read_machine_labels
from goldset_tui.io.trec import QRELS_SCHEMA
from goldset_tui.store.files import atomic_write, now_iso, safe_name, sha256_file
from goldset_tui.store.half_imports import not_imported, take_back_failed
from goldset_tui.store.manifest import ManifestLockedError, update_manifest
from goldset_tui.text import visible

if TYPE_CHECKING:
    from goldset_tui.store.project import Project

MACHINE = "machine"
# `goldset agreement` names the human consensus so in every table; a labeller under that name
# would be mistaken for it (and the machine compared with itself).
CONSENSUS = "consensus"
CONSENSUS_TAKEN = (
    "'consensus' is the name goldset gives the human consensus; give this labeller another name"
)


def is_machine(entry: object) -> bool:
    return isinstance(entry, dict) and entry.get(MACHINE) is True


def machine_labellers(manifest: dict[str, Any]) -> list[str]:
    """Names of the labellers marked as machines, sorted."""
    entries = manifest.get("labellers", {})
    if not isinstance(entries, dict):
        return []
    return sorted(str(e["name"]) for e in entries.values() if is_machine(e))


def refuse_consensus(labeller: str) -> None:
    """A person's name to judge or import under: not the consensus's, and shown as it is (no
    control or invisible character, no space at either end: `goldset serve` refuses those too,
    and a printed `goldset judge --labeller NAME` command must run as printed)."""
    if labeller == CONSENSUS:
        raise InputError(None, CONSENSUS_TAKEN, column="labeller")
    shown = visible(labeller, keep_newlines=False)
    if shown != labeller or labeller != labeller.strip():
        raise InputError(
            None,
            f"--labeller {shown!r}: a labeller's name cannot hold control or invisible "
            "characters, nor spaces at either end",
            column="labeller",
        )


def refuse_machine(project: Project, labeller: str) -> None:
    """For ``goldset judge`` and ``serve``: a machine labeller's name is not a person's to judge
    under, nor the consensus's."""
    refuse_consensus(labeller)
    if labeller in machine_labellers(project.manifest):
        raise InputError(
            project.path,
            f"{visible(labeller)!r} is a machine labeller in this store (imported with goldset "
            "import --machine); judge under your own name",
            column="labeller",
        )


@dataclass(frozen=True)
class ImportResult:
    labeller: str
    labels: int  # labels in the file
    written: int  # judgments written (labels whose grade was new or changed)
    sha256: str
    already: bool  # this file was imported for this labeller before: nothing written
    provenance: Path | None  # the confidence/rationale file


def provenance_file(project: Project, labeller: str, sha256: str) -> Path:
    return project.path / MACHINE / safe_name(labeller) / f"{sha256[:16]}.parquet"


def import_name(project: Project, labeller: str) -> str:
    """The store-safe name of an import's labeller (a machine's or a person's), or InputError: not
    empty, not the consensus's name, usable as a file name."""
    if not labeller.strip():
        raise InputError(None, "--labeller must not be empty")
    refuse_consensus(labeller)
    try:
        return safe_name(labeller)
    except ValueError as exc:
        raise InputError(project.path, str(exc), column="labeller") from None


def recorded_path(path: str | Path) -> str:
    """The imported file's absolute path as manifest text. A file name that is not UTF-8 (bytes
    Python keeps as lone surrogates) cannot go into TOML: its odd bytes are written as ``\\xff``
    escapes; the sha256 beside it is what identifies the file anyway."""
    raw = str(Path(path).resolve()).encode("utf-8", "surrogateescape")
    return raw.decode("utf-8", "backslashreplace")


def import_landed(history: pl.DataFrame, record: dict[str, Any]) -> bool:
    """Whether an import record's grades are in the store, not cut off by a crash: the record
    says how many judgments it ``written``, each carrying its ``time`` and no seconds. A record
    without ``written`` predates the count and was only ever written after its grades."""
    if "written" not in record:
        return True
    mine = history.filter(
        (pl.col("kind") == "judge")
        & pl.col("seconds").is_null()
        & (pl.col("time") == str(record.get("time")))
    )
    return mine.height == record.get("written")


def landed_imports(project: Project, labeller: str) -> list[dict[str, Any]]:
    """The labeller's import records whose grades landed (an orphan record is left out)."""
    entry = project.manifest.get("labellers", {}).get(safe_name(labeller))
    records = list((entry or {}).get("imports", []))
    if not records:
        return []
    history = project.judgments(labeller, history=True)
    return [r for r in records if import_landed(history, r)]


def _refuse_human(project: Project, safe: str, labeller: str) -> None:
    entry = project.manifest.get("labellers", {}).get(safe)
    if entry is not None and not is_machine(entry):
        raise InputError(
            project.path,
            f"{visible(labeller)!r} is a human labeller in this store; give the machine judge a "
            "name of its own",
            column="labeller",
        )


def import_machine(
    project: Project,
    labeller: str,
    path: str | Path,
    *,
    pool_pairs: pl.DataFrame | None,
    model: str | None = None,
) -> ImportResult:
    """Validate ``path`` entirely, then store its labels as machine labeller ``labeller``."""
    import_name(project, labeller)
    if model is not None and not model.strip():
        raise InputError(None, "--model must not be empty")
    check_machine_name(project, labeller)
    digest = sha256_file(Path(path)) if Path(path).is_file() else ""
    labels = read_machine_labels(path, project.scale, pool_pairs)
    if sha256_file(Path(path)) != digest:  # the sha256 recorded must be of what was read
        raise InputError(path, "changed while it was being read; import it again")
    record: dict[str, Any] = {"file": recorded_path(path)}
    if model is not None:
        record["model"] = model
    return store_machine_labels(
        project, labeller, labels, digest, record, {"model": model} if model is not None else {}
    )


def check_machine_name(project: Project, labeller: str) -> None:
    """Refuse ``labeller`` as a machine's name here: empty, the consensus's, not a file name, a
    person's (checked before a run that costs money, and again under the lock)."""
    _refuse_human(project, import_name(project, labeller), labeller)


def store_machine_labels(
    project: Project,
    labeller: str,
    labels: pl.DataFrame,
    digest: str,
    record_fields: dict[str, Any],
    entry_fields: dict[str, Any],
    *,
    replace_all: bool = False,
) -> ImportResult:
    """Store ``labels`` (``query_id, doc_id, grade, confidence, rationale``, already checked) as
    machine labeller ``labeller``, identified by ``digest`` (the same digest again writes
    nothing). ``record_fields`` go into the import's record, ``entry_fields`` into the
    labeller's own table (the model in force). ``replace_all``: the labeller's grades for pairs
    ``labels`` lacks are withdrawn (undone), so that every grade in force is from this set: a
    new model or prompt replaces the old one's labels instead of mixing with them."""
    safe = import_name(project, labeller)
    _refuse_human(project, safe, labeller)
    already = ImportResult(labeller, labels.height, 0, digest, True, None)
    known = safe in project.manifest.get("labellers", {})
    # Checked lock-free first: the same file again writes nothing, not even the lock file.
    if known and any(r.get("sha256") == digest for r in landed_imports(project, labeller)):
        return already
    try:
        # Not registered as it opens: that would enter the name as a person's, and a kill before
        # the mark would leave it so. The entry is made below, mark and record in one write.
        writer = project.writer(labeller, register=False)
    except ManifestLockedError:
        raise  # the manifest's holder, said as it is: no one need be judging this name
    except StoreLockedError as exc:
        raise StoreLockedError(
            f"{visible(labeller)!r} is being imported in {project.path} right now: {exc}"
        ) from None
    with writer:
        project.reload()
        _refuse_human(project, safe, labeller)  # someone judged under the name meanwhile
        known = safe in project.manifest.get("labellers", {})
        landed = landed_imports(project, labeller) if known else []
        if any(r.get("sha256") == digest for r in landed):
            return already
        have = (
            project.judgments(labeller).select("query_id", "doc_id", "grade")
            if known
            else pl.DataFrame(schema=QRELS_SCHEMA)
        )
        new = labels.join(
            have, on=["query_id", "doc_id", "grade"], how="anti", maintain_order="left"
        )
        stale = _stale_stack(project, labeller, labels) if replace_all and known else None
        # The provenance first: alone (killed right after) it is a file no record points at,
        # and the next import of the same file writes it again, byte for byte.
        side = provenance_file(project, labeller, digest)
        committing = False  # the grades' part is the commit point
        try:
            atomic_write(side, lambda tmp: labels.write_parquet(tmp))
            stamp = now_iso()
            record: dict[str, Any] = {
                **record_fields,
                "sha256": digest,
                "time": stamp,
                "labels": labels.height,
                "written": new.height,
            }

            def remember(data: dict[str, Any]) -> None:
                entries = data.setdefault("labellers", {})
                current = entries.get(safe)
                if current is not None and not is_machine(current):  # someone judged meanwhile
                    raise InputError(
                        project.path, f"{visible(labeller)!r} is a human labeller here"
                    )
                current = entries.setdefault(safe, {"name": labeller, "first": stamp})
                current[MACHINE] = True
                current.update(entry_fields)
                # A record whose grades a kill cut off links nothing: dropped, not kept as if.
                current["imports"] = [*landed, record]

            # The mark and the record in one atomic write, then every grade as one Parquet part
            # (one atomic rename). Killed between the two, the record links no grade (none carries
            # its time): every reader ignores it (landed_imports), the next import drops it.
            project.manifest = update_manifest(project.path, remember)
            rows = new.select(
                pl.lit(labeller).alias("labeller"),
                "query_id",
                "doc_id",
                "grade",
                pl.lit(stamp).alias("time"),
                pl.lit(None, pl.Float64).alias("seconds"),
                pl.lit(None, pl.Int64).alias("position"),
                pl.col("rationale").alias("note"),
                pl.lit("judge").alias("kind"),
            )
            if stale is not None and stale.height:
                # Undos first, in the same part: each cancels one grade still stacked on the pair.
                undos = stale.select(
                    pl.lit(labeller).alias("labeller"),
                    "query_id",
                    "doc_id",
                    pl.lit(None, pl.Int64).alias("grade"),
                    pl.lit(stamp).alias("time"),
                    pl.lit(None, pl.Float64).alias("seconds"),
                    pl.lit(None, pl.Int64).alias("position"),
                    pl.lit(None, pl.String).alias("note"),
                    pl.lit("undo").alias("kind"),
                )
                rows = pl.concat([undos, rows])
            committing = True
            writer.write_batch(rows)
        except BaseException as exc:
            # What it wrote before its grades (the provenance file, the manifest's record and a
            # new name's entry) is taken back: a failed import is not there at all.
            project.manifest = take_back_failed(project.path, safe) or project.manifest
            if isinstance(exc, OSError) and not committing:
                raise not_imported(exc) from exc
            raise
    return ImportResult(labeller, labels.height, new.height, digest, False, side)


def _stale_stack(project: Project, labeller: str, labels: pl.DataFrame) -> pl.DataFrame:
    """One row per grade still stacked on a pair ``labels`` lacks (``query_id, doc_id``, a pair
    repeated as often as it has grades in force): as many undos empty it. A machine labeller's
    history is imports (judge rows) and these undos, each of which cancels one."""
    history = project.judgments(labeller, history=True)
    depth = (
        history.filter(pl.col("kind").is_in(["judge", "undo"]))
        .group_by("query_id", "doc_id")
        .agg(((pl.col("kind") == "judge").sum() - (pl.col("kind") == "undo").sum()).alias("depth"))
        .filter(pl.col("depth") > 0)
        .join(labels.select("query_id", "doc_id"), on=["query_id", "doc_id"], how="anti")
        .sort("query_id", "doc_id")
    )
    return depth.select(
        pl.col("query_id").repeat_by("depth").explode(),
        pl.col("doc_id").repeat_by("depth").explode(),
    )


def machine_labels(project: Project, labeller: str) -> pl.DataFrame:
    """A machine labeller's grades in force, ``query_id, doc_id, grade, confidence``.

    The confidence is the one its latest import gave the pair (null when the file had none, or
    the provenance file is missing)."""
    entry = project.manifest.get("labellers", {}).get(safe_name(labeller))
    if not is_machine(entry):
        raise InputError(
            project.path,
            f"{visible(labeller)!r} is not a machine labeller in this store"
            " (goldset import --machine brings one in)",
            column="labeller",
        )
    grades = project.qrels(labeller)
    parts = []
    for order, record in enumerate(landed_imports(project, labeller)):
        side = provenance_file(project, labeller, str(record.get("sha256", "")))
        if side.exists():
            parts.append(
                pl.read_parquet(
                    side, columns=["query_id", "doc_id", "confidence"], glob=False
                ).with_columns(pl.lit(order).alias("_import"))
            )
    if not parts:
        return grades.with_columns(pl.lit(None, pl.Float64).alias("confidence"))
    confidence = (
        pl.concat(parts).sort("_import").unique(["query_id", "doc_id"], keep="last").drop("_import")
    )
    return grades.join(confidence, on=["query_id", "doc_id"], how="left")
