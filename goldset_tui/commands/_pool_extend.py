"""`goldset pool --extend POOL --run NEW=PATH --depth K -o NEW_POOL [--store DIR]`.

Crash-safe in two atomic steps, in this order: the new pool file is written whole (temporary
file, fsync, rename), then the store's manifest is switched to it and the extension appended to
its ``[[pool_extensions]]``, in one atomic manifest write. Killed between the two, the store still
names the old pool, whose file is untouched; running the same command again writes the same bytes
and finishes the job. Run again after it finished, it writes the pool again and says the store
already records the extension. Judgments are never touched: they are keyed by (query_id, doc_id).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.text import visible


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--extend",
        metavar="POOL",
        help="add the one --run's top K to this existing pool, keeping every candidate and its "
        "provenance; -o names the new pool (--topics is not needed)",
    )
    parser.add_argument(
        "--store",
        metavar="DIR",
        help="with --extend: the store to switch to the new pool (default: the one store known to "
        "hold POOL, as `goldset judge POOL` finds it); it records the extension and keeps every "
        "judgment",
    )


def _store_for(args: argparse.Namespace, pool_path: Path) -> Path | None:
    """--store, else the one store known to hold POOL (as `goldset judge POOL` finds it)."""
    from goldset_tui.app.store_choice import choose_store
    from goldset_tui.store.manifest import manifest_path

    if args.store:
        return Path(args.store)
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


def run_extend(args: argparse.Namespace) -> int:
    from goldset_tui.io.pools import load_pool, write_pool
    from goldset_tui.io.run_scan import scan_run
    from goldset_tui.io.tables import table_format
    from goldset_tui.pooling.extension import extend_pool
    from goldset_tui.specs import parse_named_paths
    from goldset_tui.store.files import now_iso, sha256_file

    if args.depth < 1:
        raise InputError(None, f"--depth must be at least 1, got {args.depth}")
    if len(args.run) != 1:
        raise InputError(None, "--extend adds one system: give exactly one --run NEW=PATH")
    pool_path, out = Path(args.extend), Path(args.output)
    table_format(out)
    if out.resolve() == pool_path.resolve():
        raise InputError(
            out, "write the extended pool to a new file: the old one is what was judged so far"
        )
    if not out.parent.is_dir():
        raise InputError(out, "the folder to write into does not exist")
    ((name, run_path),) = parse_named_paths(args.run, "--run").items()
    pool = load_pool(pool_path, corpus=args.corpus)
    store = _store_for(args, pool_path)
    done = _check_store(store, pool.sha256, name) if store else False
    queries = pool.frame.get_column("query_id").unique()
    run = scan_run(run_path, depth=args.depth, queries=queries).select("query_id", "doc_id", "rank")
    try:
        extended, counts = extend_pool(pool.frame, run, name, args.depth)
    except ValueError as exc:
        raise InputError(Path(run_path), str(exc)) from None
    extended = _fill_texts(extended, args.corpus, pool_path)
    if extended.get_column("stratum").null_count() == extended.height:
        extended = extended.drop("stratum")
    write_pool(extended, out)  # step 1: the whole new pool, atomically
    new_sha = sha256_file(out)
    _print_counts(counts, name, args.depth, out)
    if pool.prior is not None and pool.prior.height:
        print(
            f"note: POOL's {pool.prior.height} prior grades are not copied into {out} (a flat "
            "pool holds no grades); the store keeps them as judgments",
            file=sys.stderr,
        )
    if store is None:
        print(
            "note: no store records this extension (give --store DIR to switch a store to the "
            "new pool)",
            file=sys.stderr,
        )
        return 0
    if done:
        print(f"the store {store} already records this extension", file=sys.stderr)
        return 0
    entry: dict[str, Any] = {
        "time": now_iso(),
        "run": name,
        "run_path": str(Path(run_path).resolve()),
        "run_sha256": sha256_file(run_path),
        "depth": args.depth,
        "from_path": str(pool_path.resolve()),
        "from_sha256": pool.sha256,
        "to_path": str(out.resolve()),
        "to_sha256": new_sha,
        "new_pairs": int(counts.get_column("new").sum()),
    }
    corpus = {"path": str(Path(args.corpus).resolve()), "sha256": sha256_file(args.corpus)}
    _switch_store(store, entry, corpus if args.corpus else None)  # step 2: one atomic write
    _say_how_to_judge(store, out, int(entry["new_pairs"]))
    return 0


def _say_how_to_judge(store: Path, out: Path, new: int) -> None:
    """Commands that run as printed, one per labeller of the store (judging needs --labeller):
    --only-new for the new pairs alone; without it, every pair not judged yet, old and new."""
    import getpass
    import shlex

    from goldset_tui.io.pool_schema import PRIOR_LABELLER
    from goldset_tui.store.machine import machine_labellers
    from goldset_tui.store.manifest import read_manifest

    manifest = read_manifest(store)
    machines = set(machine_labellers(manifest))
    people = sorted(
        {e["name"] for e in manifest.get("labellers", {}).values()} - machines - {PRIOR_LABELLER}
    )
    try:
        people = people or [getpass.getuser()]
    except (KeyError, OSError):  # no user name to be had (a container without one)
        people = people or ["NAME"]
    print(
        f"the store {store} now judges {out}; its judgments are kept. To judge only the {new:,} "
        "new pairs (marked +new on the screen):",
        file=sys.stderr,
    )
    for name in people:
        words = ["goldset", "judge", str(out), "--store", str(store), "--labeller", name]
        print("  " + shlex.join([*words, "--only-new"]), file=sys.stderr)
    print(
        "without --only-new, judging serves every pair not judged yet, old and new",
        file=sys.stderr,
    )


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


def _print_counts(counts: pl.DataFrame, name: str, depth: int, out: Path) -> None:
    width = max(8, min(30, max(len(q) for q in counts.get_column("query_id").to_list())))
    print(f"{'query':<{width}}  {'before':>6}  {'new':>4}  {'after':>5}")
    for qid, before, new, after in counts.iter_rows():
        shown = visible(qid, keep_newlines=False)[:width]
        print(f"{shown:<{width}}  {before:>6}  {new:>4}  {after:>5}")
    total_new = int(counts.get_column("new").sum())
    total = int(counts.get_column("after").sum())
    print(
        f"wrote {out}: {name}'s top {depth} adds {total_new:,} new pairs to "
        f"{total - total_new:,} ({total:,} candidates, {counts.height:,} queries)"
    )
