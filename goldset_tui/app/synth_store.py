"""`goldset synth --store DIR`: the store whose pool holds these synthetic queries records their
setup, so its ``[version]`` and every history record name the prompt and model behind them.

``[synthetic_queries]`` in the store's manifest: provider, model, the version the provider
reported, the prompt's sha256, the sha256 of the queries file and of its manifest, the corpus's
sha256, the near-duplicate threshold, and how many of the pool's queries came from it. The
history reads it through ``goldset_tui.history.version`` (a new model or prompt there is a
change of the golden set, said in words, not a regression). A store whose pool holds none of the
queries is refused: recording there would claim an origin its queries do not have.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.errors import InputError

TABLE = "synthetic_queries"


def record_synthetic(
    store: str | Path, manifest: dict[str, Any], manifest_path: Path, queries: pl.DataFrame
) -> int:
    """Write the setup into ``store``; the number of the pool's queries that are these."""
    from goldset_tui.io.pools import load_pool
    from goldset_tui.sampling.normalise import normalise
    from goldset_tui.store import Project
    from goldset_tui.store.files import sha256_file
    from goldset_tui.store.manifest import recorded_corpus

    project = Project.open(store)
    pool = load_pool(project.pool_path, corpus=recorded_corpus(project.manifest))
    # By id (a pool made from QUERIES itself) or by normalised text (a pool made from a sample,
    # whose ids `sample draw` gives from the text): either way the same queries.
    texts = queries.select(normalise(pl.col("query")).alias("q")).get_column("q")
    found = pool.frame.select("query_id", normalise(pl.col("query")).alias("q")).unique("query_id")
    mine = found.filter(
        pl.col("query_id").is_in(queries.get_column("query_id").implode())
        | pl.col("q").is_in(texts.implode())
    ).height
    if mine == 0:
        raise InputError(
            Path(store),
            "the store's pool holds none of these synthetic queries (make the pool from them: "
            "goldset pool --topics QUERIES_OR_SAMPLE)",
        )
    model = manifest["model"]
    entry = {
        "provider": model["provider"],
        "model": model["model"],
        "model_version": model["model_version"],
        "prompt_sha256": manifest["prompt"]["sha256"],
        "queries_sha256": manifest["outputs"]["queries"]["sha256"],
        "manifest_sha256": sha256_file(manifest_path),
        "corpus_sha256": manifest["corpus"]["sha256"],
        "near_duplicate_threshold": manifest["near_duplicate_threshold"],
        "queries_in_pool": mine,
    }
    project.update_manifest(**{TABLE: entry})
    return mine
