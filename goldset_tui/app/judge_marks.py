"""What `goldset judge` marks on the screen, and ``--only-new``: the pairs the store's last pool
extension added (``goldset pool --extend``), and the queries of the planned overlap.

The new pairs are known only while the store judges the pool that extension made (its sha256 is
the one recorded as ``to_sha256``): from the pairs' provenance (``pool_extension.added_by``) or,
when that cannot tell, by comparing with the old pool file the extension recorded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from goldset_tui.errors import InputError

if TYPE_CHECKING:
    from typing import Protocol

    from goldset_tui.io.pools import Pool
    from goldset_tui.store.project import Project

    class Prepared(Protocol):
        """What these need of judging.JudgingSetup (named, not imported: judging imports this)."""

        project: Project
        pool: Pool
        query_ids: list[str] | None


@dataclass(frozen=True)
class PairMarks:
    """What the screen marks (``goldset_tui.ui.widgets.marks`` draws them)."""

    new_pairs: frozenset[tuple[str, str]] = field(default_factory=frozenset)
    shared_queries: frozenset[str] = field(default_factory=frozenset)
    team: int = 0  # how many labellers share the shared queries


def new_pairs(prepared: Prepared) -> pl.DataFrame | None:
    """``query_id, doc_id`` the last extension added to this pool; None when the store was never
    extended, judges another pool now, or the pairs cannot be told apart."""
    from goldset_tui.pooling.extension import added_by, last_extension

    pool, project = prepared.pool, prepared.project
    extension = last_extension(project.manifest)
    if extension is None or extension.get("to_sha256") != pool.sha256:
        return None
    added = added_by(pool.frame, extension)
    if added is not None:
        return added
    return _against_old_pool(pool.frame, extension, project.manifest)


def _against_old_pool(
    frame: pl.DataFrame, extension: dict[str, Any], manifest: dict[str, Any]
) -> pl.DataFrame | None:
    from goldset_tui.io.pools import load_pool
    from goldset_tui.store.files import sha256_file
    from goldset_tui.store.manifest import recorded_corpus

    old = Path(str(extension.get("from_path", "")))
    try:
        if not old.is_file() or sha256_file(old) != extension.get("from_sha256"):
            return None
        before = load_pool(old, corpus=recorded_corpus(manifest)).frame
    except (InputError, OSError):
        return None
    return frame.select("query_id", "doc_id").join(before, on=["query_id", "doc_id"], how="anti")


def keep_only_new(prepared: Prepared) -> None:
    """``--only-new``: the pool (and the labeller's queries) cut to the last extension's pairs."""
    added = new_pairs(prepared)
    if added is None:
        raise InputError(
            prepared.pool.path,
            "--only-new serves the pairs `goldset pool --extend` added, and this store's last "
            "extension did not make this pool (or it was never extended); leave --only-new out",
        )
    pool = prepared.pool
    pool.frame = pool.frame.join(
        added, on=["query_id", "doc_id"], how="semi", maintain_order="left"
    )
    queries = set(pool.frame.get_column("query_id").to_list())
    if prepared.query_ids is not None:
        prepared.query_ids = [q for q in prepared.query_ids if q in queries]
    if pool.frame.height == 0 or prepared.query_ids == []:
        raise InputError(pool.path, "--only-new: the last extension added no pair to your queries")


def marks_for(prepared: Prepared) -> PairMarks:
    """The new pairs of the last extension and, on a planned overlap, the shared queries."""
    from goldset_tui.agreement.assignment import overlap_query_ids

    added = new_pairs(prepared)
    pairs = frozenset(added.iter_rows()) if added is not None else frozenset()
    plan = prepared.project.manifest.get("assignment", {})
    shared: frozenset[str] = frozenset()
    if prepared.query_ids is not None and "overlap" in plan:
        ids = prepared.pool.frame.get_column("query_id").unique(maintain_order=True).to_list()
        shared = frozenset(overlap_query_ids(ids, float(plan["overlap"]), int(plan.get("seed", 0))))
    return PairMarks(pairs, shared, len(plan.get("labellers", [])) if shared else 0)
