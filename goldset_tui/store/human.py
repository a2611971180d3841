"""People's judgments made elsewhere (TREC qrels from an earlier campaign, a spreadsheet of graded
pairs) brought into a store as a named **human** labeller.

An imported person is an ordinary labeller: their grades count in the consensus, in agreement and
in every export, and ``goldset judge`` resumes after them. What marks the imported judgments is
their manifest table::

    [labellers.alice]
    name = "alice"
    first = "..."
    imports = [{file = "...", sha256 = "...", time = "...", labels = 120, written = 118}]

Every judgment an import writes carries that record's ``time`` and no ``seconds`` (a grade given
on the screen always records the seconds spent on it), so :func:`imported_judgments` can tell
them from screen judgments, and the link survives ``goldset merge`` (which keeps every event's
time and unions the records).

Contract of :func:`import_human`:

- **Checked before anything is written**: the file entirely (grade off the store's scale, a pair
  given twice with different grades, a pair not in the pool: one InputError naming the file and
  line or row), the name (not a machine labeller, not ``consensus``), and, under the labeller's
  writer lock, every pair the labeller already graded differently (refused by default, naming the
  pair and the line; ``on_conflict="keep"`` imports only the other pairs, ``"replace"`` lets the
  file's grade stand, the earlier one staying in the history).
- **The labeller's writer lock is held** from the comparison to the last write, so an import
  cannot interleave with a live ``goldset judge`` or ``goldset serve`` of the same labeller: it is
  refused (StoreLockedError) while one is open.
- **All or nothing, SIGKILL-safe.** Two durable steps: the manifest record (an atomic replace),
  then every judgment as one Parquet part (one atomic rename, :meth:`JudgmentWriter.write_batch`).
  Killed after the first (or failed with its own clean-up failing too), the store holds a record
  whose judgments never landed: it links nothing (no judgment has its time); the next open of the
  store takes a new name's entry and record back out (:mod:`goldset_tui.store.half_imports`), and
  the next import of a known name drops the record, so importing the same file again writes it in
  full. Killed after the second, the import is complete.
- **Idempotent**: a file whose sha256 this labeller already imported (and whose judgments landed)
  writes nothing, even if the labeller re-graded some of those pairs on the screen since.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from goldset_tui.errors import InputError, StoreLockedError
from goldset_tui.io.machine import read_human_labels
from goldset_tui.io.trec import QRELS_SCHEMA
from goldset_tui.store.files import now_iso, safe_name, sha256_file
from goldset_tui.store.frames import latest
from goldset_tui.store.half_imports import not_imported, take_back_failed
from goldset_tui.store.machine import import_landed, import_name, is_machine, recorded_path
from goldset_tui.store.manifest import ManifestLockedError, update_manifest
from goldset_tui.text import visible

if TYPE_CHECKING:
    from goldset_tui.store.project import Project

ON_CONFLICT = ("refuse", "keep", "replace")
PAIR = ["query_id", "doc_id"]


@dataclass(frozen=True)
class HumanImportResult:
    labeller: str
    labels: int  # distinct pairs in the file
    written: int  # judgments written: pairs new to the labeller, plus any replaced
    unchanged: int  # pairs the labeller already had at the file's grade
    kept: int  # pairs the labeller graded differently, left as they were (on_conflict="keep")
    replaced: int  # pairs the labeller graded differently, now at the file's grade ("replace")
    sha256: str
    already: bool  # this file was imported for this labeller before: nothing written


def _refuse_machine(project: Project, safe: str, labeller: str) -> None:
    if is_machine(project.manifest.get("labellers", {}).get(safe)):
        raise InputError(
            project.path,
            f"{visible(labeller)!r} is a machine labeller in this store (goldset import "
            "--machine); import a person's judgments under the person's own name",
            column="labeller",
        )


def _imported_before(project: Project, safe: str, labeller: str, digest: str) -> bool:
    entry = project.manifest.get("labellers", {}).get(safe)
    records = [r for r in (entry or {}).get("imports", []) if r.get("sha256") == digest]
    if not records:
        return False
    history = project.judgments(labeller, history=True)
    return any(import_landed(history, r) for r in records)


def import_human(
    project: Project,
    labeller: str,
    path: str | Path,
    *,
    pool_pairs: pl.DataFrame | None,
    on_conflict: str = "refuse",
) -> HumanImportResult:
    """Validate ``path`` entirely, then store its grades as human labeller ``labeller``."""
    if on_conflict not in ON_CONFLICT:
        raise InputError(None, f"--on-conflict {on_conflict!r}: expected one of {ON_CONFLICT}")
    safe = import_name(project, labeller)
    _refuse_machine(project, safe, labeller)
    digest = sha256_file(Path(path)) if Path(path).is_file() else ""
    labels = read_human_labels(path, project.scale, pool_pairs)
    if sha256_file(labels.path) != digest:  # the sha256 recorded must be of what was read
        raise InputError(labels.path, "changed while it was being read; import it again")
    already = HumanImportResult(labeller, labels.frame.height, 0, 0, 0, 0, digest, True)
    # Checked lock-free first: importing the same file again writes nothing at all, not even
    # the lock file, and says so even while the labeller is judging. Except under replace,
    # which asks for the file's grades to stand over any given since (checked below).
    if on_conflict != "replace" and _imported_before(project, safe, labeller, digest):
        return already
    try:
        # Not registered as it opens: a failed import would leave the new name as an empty
        # labeller. The entry is made with the import's record, in one write (below).
        writer = project.writer(labeller, register=False)
    except ManifestLockedError:
        raise  # the manifest's holder, said as it is: no one need be judging this name
    except StoreLockedError as exc:
        raise StoreLockedError(
            f"{visible(labeller)!r} is being judged or imported in {project.path} right now, and "
            f"an import must not interleave with it: {exc}"
        ) from None
    with writer:
        project.reload()
        _refuse_machine(project, safe, labeller)  # a machine import may have won the name
        entry = project.manifest.get("labellers", {}).get(safe)
        if entry is not None and entry.get("name") != labeller:
            raise InputError(project.path, f"labeller {labeller!r} clashes with {entry['name']!r}")
        history = (
            project.judgments(labeller, history=True)
            if entry
            else pl.DataFrame(schema=QRELS_SCHEMA)
        )
        records = list(entry.get("imports", [])) if entry else []
        landed = [r for r in records if import_landed(history, r)]
        have = (latest(history) if entry else history).select(*PAIR, pl.col("grade").alias("have"))
        compared = labels.frame.join(have, on=PAIR, how="left", maintain_order="left")
        differs = compared.filter(
            pl.col("have").is_not_null() & (pl.col("grade") != pl.col("have"))
        )
        if any(r.get("sha256") == digest for r in landed) and (
            on_conflict != "replace" or not differs.height
        ):
            return already
        if differs.height and on_conflict == "refuse":
            labels.refuse(
                # The name is a field, not part of the template: a name may hold { and }.
                differs.with_columns(who=pl.lit(visible(labeller))),
                "{pair} is graded {grade} here, but {who} already graded it {have} in this "
                "store; nothing imported (--on-conflict keep imports only the other pairs, "
                "--on-conflict replace lets this file's grades stand)",
                "grade",
            )
        new = compared.filter(pl.col("have").is_null())
        chosen = pl.concat([new, differs]) if on_conflict == "replace" else new
        stamp = now_iso()
        record = {
            "file": recorded_path(labels.path),
            "sha256": digest,
            "time": stamp,
            "labels": labels.frame.height,
            "written": chosen.height,
        }

        def remember(data: dict[str, Any]) -> None:
            entries = data.setdefault("labellers", {})
            current = entries.setdefault(safe, {"name": labeller, "first": stamp})
            if current["name"] != labeller or is_machine(current):  # someone else meanwhile
                raise InputError(project.path, f"{visible(labeller)!r} is taken here meanwhile")
            # A record whose judgments a crash cut off links nothing: dropped, not kept as if.
            current["imports"] = [*landed, record]

        # The record first: every imported judgment is linked to its file from the moment it
        # exists, whatever moment the process is killed at (see the module docstring).
        try:
            project.manifest = update_manifest(project.path, remember)
        except OSError as exc:
            project.manifest = take_back_failed(project.path, safe) or project.manifest
            raise not_imported(exc) from exc
        try:
            writer.write_batch(batch(chosen, labeller, stamp))
        except BaseException:
            project.manifest = take_back_failed(project.path, safe) or project.manifest
            raise
    unchanged = compared.height - new.height - differs.height
    kept = differs.height if on_conflict == "keep" else 0
    replaced = differs.height if on_conflict == "replace" else 0
    return HumanImportResult(
        labeller, labels.frame.height, chosen.height, unchanged, kept, replaced, digest, False
    )


def batch(chosen: pl.DataFrame, labeller: str, stamp: str) -> pl.DataFrame:
    """The rows an import writes: the record's time, no seconds (what marks them imported)."""
    return chosen.sort("_i").select(
        pl.lit(labeller).alias("labeller"),
        *PAIR,
        "grade",
        pl.lit(stamp).alias("time"),
        pl.lit(None, pl.Float64).alias("seconds"),
        pl.lit(None, pl.Int64).alias("position"),
        "note",
        pl.lit("judge").alias("kind"),
    )


def judged_on_screen(project: Project, labeller: str) -> bool:
    """Whether ``labeller`` did anything but imports in this store: a grade, undo, repeat or note
    given on the judging screen. An import's judgments are the ones linked to one of the
    labeller's import records (a person's file or a machine's: kind judge, no seconds, the
    record's time), so a labeller whose only grades were imported has not had a first sitting
    yet (the screen shows the guidelines then)."""
    if labeller not in project.labellers():
        return False
    entry = project.manifest.get("labellers", {}).get(safe_name(labeller), {})
    times = [str(r["time"]) for r in entry.get("imports", []) if "time" in r]
    history = project.judgments(labeller, history=True)
    imported = (
        (pl.col("kind") == "judge") & pl.col("seconds").is_null() & pl.col("time").is_in(times)
    )
    return bool(history.filter(~imported).height)


IMPORTED_SCHEMA = {
    "labeller": pl.String,
    "query_id": pl.String,
    "doc_id": pl.String,
    "grade": pl.Int64,
    "seq": pl.Int64,
    "file": pl.String,
    "sha256": pl.String,
}


def imported_judgments(project: Project, labeller: str | None = None) -> pl.DataFrame:
    """Every judgment event an import of a person's file wrote: ``labeller, query_id, doc_id,
    grade, seq, file, sha256`` (the file it came from), in each labeller's seq order. Judgments
    given on the screen are not in it. ``labeller`` None: every labeller's."""
    project.reload()
    rows: list[dict[str, Any]] = [
        {
            "labeller": str(entry["name"]),
            "time": str(record["time"]),
            "file": str(record.get("file", "")),
            "sha256": str(record.get("sha256", "")),
        }
        for entry in project.manifest.get("labellers", {}).values()
        if not is_machine(entry) and labeller in (None, entry["name"])
        for record in entry.get("imports", [])
        if "time" in record
    ]
    if not rows:
        return pl.DataFrame(schema=IMPORTED_SCHEMA)
    records = pl.DataFrame(rows)
    names = records["labeller"].unique(maintain_order=True).to_list()
    history = pl.concat([project.judgments(name, history=True) for name in names])
    return (
        history.filter((pl.col("kind") == "judge") & pl.col("seconds").is_null())
        .join(records, on=["labeller", "time"], how="inner", maintain_order="left")
        .select(list(IMPORTED_SCHEMA))
    )
