"""Extending a judged pool with one more system (`goldset pool --extend`): its top k added to
every query, each candidate keeping its provenance, and the store switched to the new pool.

Crash-safe in two atomic steps, in this order: :func:`write_extension` writes the new pool file
whole (temporary file, fsync, rename), then :func:`record_extension` switches the store's
manifest to it and appends the extension to its ``[[pool_extensions]]``, in one atomic manifest
write. Killed between the two, the store still names the old pool, whose file is untouched;
running the same command again writes the same bytes and finishes the job. Run again after it
finished, it writes the pool again and finds the store already records the extension. Judgments
are never touched: they are keyed by (query_id, doc_id).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.errors import InputError


def extension_output(pool_path: Path, output: str) -> Path:
    """Where the extended pool goes, checked before any work: a known extension, not the pool
    being extended (that is what was judged so far), an existing folder."""
    from goldset_tui.io.tables import table_format

    out = Path(output)
    table_format(out)
    if out.resolve() == pool_path.resolve():
        raise InputError(
            out, "write the extended pool to a new file: the old one is what was judged so far"
        )
    if not out.parent.is_dir():
        raise InputError(out, "the folder to write into does not exist")
    return out


@dataclass(frozen=True)
class Extension:
    """The extended pool, written (step 1), and what the store needs to record it (step 2)."""

    pool_path: Path  # the pool extended
    pool_sha256: str
    name: str  # the system added
    run_path: Path
    depth: int
    output: Path  # the extended pool
    output_sha256: str
    corpus: str | None
    counts: pl.DataFrame  # per query: query_id, before, new, after
    prior_grades: int  # grades the old pool carried, which a flat pool cannot (0: none)
    store: Path | None  # the store to switch, if one is known
    already_recorded: bool  # that store records this very extension already

    @property
    def new_pairs(self) -> int:
        return int(self.counts.get_column("new").sum())


def write_extension(
    pool_path: Path,
    name: str,
    run_path: Path,
    *,
    depth: int,
    output: Path,
    corpus: str | None = None,
    store: str | None = None,
) -> Extension:
    """Step 1: add run ``name``'s top ``depth`` to the pool at ``pool_path`` and write the whole
    extended pool to ``output`` atomically. The store is ``store``, else the one store known to
    hold the pool (as `goldset judge POOL` finds it); a store made from another pool is an error."""
    from goldset_tui.io.pools import load_pool, write_pool
    from goldset_tui.io.run_scan import scan_run
    from goldset_tui.pooling.extension import extend_pool
    from goldset_tui.store.files import sha256_file

    pool = load_pool(pool_path, corpus=corpus)
    chosen = _store_for(store, pool_path)
    done = _check_store(chosen, pool.sha256, name) if chosen else False
    queries = pool.frame.get_column("query_id").unique()
    run = scan_run(run_path, depth=depth, queries=queries).select("query_id", "doc_id", "rank")
    try:
        extended, counts = extend_pool(pool.frame, run, name, depth)
    except ValueError as exc:
        raise InputError(Path(run_path), str(exc)) from None
    extended = _fill_texts(extended, corpus, pool_path)
    if extended.get_column("stratum").null_count() == extended.height:
        extended = extended.drop("stratum")
    write_pool(extended, output)  # step 1: the whole new pool, atomically
    return Extension(
        pool_path=pool_path,
        pool_sha256=pool.sha256,
        name=name,
        run_path=run_path,
        depth=depth,
        output=output,
        output_sha256=sha256_file(output),
        corpus=corpus,
        counts=counts,
        prior_grades=pool.prior.height if pool.prior is not None else 0,
        store=chosen,
        already_recorded=done,
    )


def record_extension(extension: Extension) -> None:
    """Step 2: switch the store to the extended pool and append the extension to its
    ``[[pool_extensions]]`` (with the corpus, when one was given), in one atomic write."""
    from goldset_tui.store.files import now_iso, sha256_file

    if extension.store is None:
        raise ValueError("no store to record the extension in")
    entry: dict[str, Any] = {
        "time": now_iso(),
        "run": extension.name,
        "run_path": str(Path(extension.run_path).resolve()),
        "run_sha256": sha256_file(extension.run_path),
        "depth": extension.depth,
        "from_path": str(extension.pool_path.resolve()),
        "from_sha256": extension.pool_sha256,
        "to_path": str(extension.output.resolve()),
        "to_sha256": extension.output_sha256,
        "new_pairs": extension.new_pairs,
    }
    corpus = (
        {"path": str(Path(extension.corpus).resolve()), "sha256": sha256_file(extension.corpus)}
        if extension.corpus
        else None
    )
    _switch_store(extension.store, entry, corpus)


def labellers_to_judge(store: Path) -> list[str]:
    """The people who judge in ``store`` (not its machine judges, not the pool's prior grades),
    sorted; none yet: the user running this, or ``NAME`` where there is no user name."""
    import getpass

    from goldset_tui.io.pool_schema import PRIOR_LABELLER
    from goldset_tui.store.machine import machine_labellers
    from goldset_tui.store.manifest import read_manifest

    manifest = read_manifest(store)
    machines = set(machine_labellers(manifest))
    people = sorted(
        {e["name"] for e in manifest.get("labellers", {}).values()} - machines - {PRIOR_LABELLER}
    )
    try:
        return people or [getpass.getuser()]
    except (KeyError, OSError):  # no user name to be had (a container without one)
        return people or ["NAME"]


def _store_for(store: str | None, pool_path: Path) -> Path | None:
    """``store``, else the one store known to hold POOL (as `goldset judge POOL` finds it)."""
    from goldset_tui.app.store_choice import choose_store
    from goldset_tui.store.manifest import manifest_path

    if store:
        return Path(store)
    found = choose_store(pool_path, None).store
    return found if manifest_path(found).exists() else None


def _check_store(store: Path, pool_sha: str, name: str) -> bool:
    """True when the store already records this very extension (nothing to do there)."""
    from goldset_tui.store.manifest import read_manifest

    manifest = read_manifest(store)
    if manifest["pool"]["sha256"] == pool_sha:
        return False
    for ext in manifest.get("pool_extensions", []):
        if ext.get("from_sha256") == pool_sha and ext.get("run") == name:
            return True
    raise InputError(
        store,
        "this store was made from another pool (its sha256 is "
        f"{manifest['pool']['sha256'][:12]}..., POOL's is {pool_sha[:12]}...): extend the pool "
        "the store judges",
    )


def _fill_texts(frame: pl.DataFrame, corpus: str | None, pool_path: Path) -> pl.DataFrame:
    from goldset_tui.io.corpus import read_corpus

    missing = frame.filter(pl.col("text").is_null())
    if missing.height == 0:
        return frame
    ids = missing.get_column("doc_id").unique(maintain_order=True)
    if corpus is None:
        raise InputError(
            pool_path,
            f"{ids.len()} new candidates have no text yet ({', '.join(ids.head(3).to_list())}, "
            "...): give --corpus FILE",
        )
    docs = read_corpus(corpus, ids=ids).select(
        "doc_id", pl.col("text").alias("_text"), pl.col("title").alias("_title")
    )
    frame = frame.join(docs, on="doc_id", how="left", maintain_order="left").with_columns(
        pl.coalesce("text", "_text").alias("text"), pl.coalesce("title", "_title").alias("title")
    )
    still = frame.filter(pl.col("text").is_null()).get_column("doc_id").unique()
    if still.len():
        raise InputError(
            Path(corpus), f"no text for {still.len()} new candidates: {still.head(5).to_list()}"
        )
    return frame.drop("_text", "_title")


def _switch_store(store: Path, entry: dict[str, Any], corpus: dict[str, str] | None) -> None:
    from goldset_tui.store.manifest import update_manifest

    def change(data: dict[str, Any]) -> None:
        if data["pool"]["sha256"] != entry["from_sha256"]:
            raise InputError(store, "the store's pool changed while extending; run again")
        data.setdefault("pool_extensions", []).append(entry)
        data["pool"] = {"path": entry["to_path"], "sha256": entry["to_sha256"]}
        if corpus is not None:
            data["corpus"] = corpus

    update_manifest(store, change)
