"""Importing judgments into a store (`goldset import`). The store it writes into is an existing
store (checked against the pool given, which must be the store's own), or a store made from
``--pool``, but only after the pool and the whole labels file passed every check, so a refused
import leaves no empty store behind. After a person's grades, what is left for them to judge.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from goldset_tui.errors import InputError
from goldset_tui.text import visible

if TYPE_CHECKING:
    import polars as pl

    from goldset_tui.model import GradeScale
    from goldset_tui.store.human import HumanImportResult
    from goldset_tui.store.project import Project


def open_import_store(
    store: str | Path | None,
    pool: str | None,
    *,
    scale: GradeScale | None,
    corpus: str | None,
    human: str | None,
    machine: str | None,
) -> tuple[Project, pl.DataFrame]:
    """The store to import into, and the pool's pairs (query_id, doc_id). Without ``store``, the
    pool's default store; one that does not exist yet is made from ``pool`` (with ``scale``, and
    recording ``corpus``) once the labels file (``human``, else ``machine``) is read whole."""
    from goldset_tui.app.scale import refuse_other_scale
    from goldset_tui.io.machine import read_human_labels, read_machine_labels
    from goldset_tui.io.pools import load_pool
    from goldset_tui.io.tables import check_file
    from goldset_tui.model import GradeScale
    from goldset_tui.store import Project, default_store_for, sha256_file
    from goldset_tui.store.manifest import manifest_path, new_store_fields
    from goldset_tui.store.project import refuse_busy_folder

    if store is None and pool is None:
        raise InputError(None, "give --store DIR, or --pool POOL (its store is made if need be)")
    folder = Path(store) if store else default_store_for(str(pool))
    if pool is None or manifest_path(folder).exists():
        project = Project.open(folder)
        refuse_other_scale(folder, project.scale, scale)
        if pool is not None and sha256_file(check_file(pool)) != project.pool_sha256:
            raise InputError(
                pool,
                f"is not the pool the store {folder} was made from ({project.pool_path}); the "
                "judgments are checked against the store's pool: leave out --pool",
            )
        return project, _pool_pairs(project, corpus)
    refuse_busy_folder(folder)
    scale = scale or GradeScale()
    loaded = load_pool(pool, corpus=corpus, scale=scale)
    pairs = loaded.frame.select("query_id", "doc_id")
    if human is not None:
        read_human_labels(human, scale, pairs)
    else:
        read_machine_labels(str(machine), scale, pairs)
    project = Project.open_or_create(
        folder,
        pool_path=loaded.path,
        pool_sha256=loaded.sha256,
        **new_store_fields(scale, corpus),
    )
    print(f"made the store {visible(str(folder))} for the pool {visible(pool)}", file=sys.stderr)
    return project, pairs


def _pool_pairs(project: Project, corpus: str | None) -> pl.DataFrame:
    from goldset_tui.io.pools import load_pool
    from goldset_tui.store.manifest import recorded_corpus, remember_corpus

    try:
        # A pool of ids only needs its corpus: --corpus, else the one the store records.
        pool = load_pool(
            project.manifest["pool"]["path"],
            corpus=corpus or recorded_corpus(project.manifest),
            scale=project.scale,
        )
    except (InputError, OSError) as exc:
        # Without the pool a label for a pair nobody pooled cannot be told apart: refuse.
        raise InputError(
            project.path,
            f"the store's pool cannot be read ({exc}); labels are checked against it",
        ) from None
    if corpus is not None:  # the next command on the store finds the texts without --corpus
        project.manifest = remember_corpus(project.path, project.manifest, corpus)
    return pool.frame.select("query_id", "doc_id")


@dataclass(frozen=True)
class HumanImport:
    """A person's grades imported: the store's account of it, and (unless the file was imported
    before) how many of the pool's ``pairs`` are ``left`` for them, with the `goldset judge`
    command that serves them next."""

    result: HumanImportResult
    left: int
    pairs: int
    judge_command: list[str]


def import_human_labels(
    project: Project, labeller: str, path: Path, pool_pairs: pl.DataFrame, on_conflict: str
) -> HumanImport:
    from goldset_tui.store.human import import_human

    result = import_human(project, labeller, path, pool_pairs=pool_pairs, on_conflict=on_conflict)
    if result.already:
        return HumanImport(result, 0, 0, [])
    graded = project.qrels(result.labeller).select("query_id", "doc_id")
    pairs = pool_pairs.unique()
    left = pairs.join(graded, on=["query_id", "doc_id"], how="anti").height
    command = ["goldset", "judge", str(project.pool_path), "--store", str(project.path)]
    return HumanImport(result, left, pairs.height, [*command, "--labeller", result.labeller])
