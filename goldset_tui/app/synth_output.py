"""What `goldset synth` writes: the queries, the expected-relevant qrels and the manifest.

- QUERIES (``.csv``, ``.tsv`` or ``.parquet``): ``query_id, query, doc_id, origin``, one row per
  query in corpus order; ``query_id`` is ``syn-`` and 12 hex digits of the sha256 of the
  document's id and the query, so the same query from the same document keeps its id across
  runs. ``origin`` is ``synthetic`` (``goldset_tui.sampling.origin``). The table reads as a log
  (``classify``, ``classify --compare``: every row one search) and as topics (``pool --topics``,
  ``.csv`` or ``.parquet``).
- ``<stem>.qrels``: ``query_id 0 doc_id 1`` per query: the document a query was written from is
  its one known relevant document (keep it in the index you evaluate: removing it would make the
  query unanswerable). Other documents may be relevant too; nobody has judged them.
- ``<stem>.manifest.toml``: the setup, so that a later score drop can be told from a new query
  set: the prompt's text and sha256, provider, model asked for and the version it reported,
  temperature and seed (where the provider takes them), the corpus's path and sha256, the
  documents drawn, the near-duplicate threshold, the counts, each output's sha256 and, with
  ``--log``, the comparison with real traffic. No key: this module never sees one.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

if TYPE_CHECKING:
    from goldset_tui.app.classifying import QuerySetComparison
    from goldset_tui.machine.synth_prompt import SynthPrompt

KIND = "synth"


@dataclass(frozen=True)
class SynthPaths:
    queries: Path
    qrels: Path
    manifest: Path
    cache: Path  # the folder of the answer cache and the prompts used


def outputs_for(output: str | Path) -> SynthPaths:
    out = Path(output)
    return SynthPaths(
        queries=out,
        qrels=out.with_name(out.stem + ".qrels"),
        manifest=out.with_name(out.stem + ".manifest.toml"),
        cache=out.with_name(out.stem + ".synth"),
    )


def check_outputs(paths: SynthPaths) -> None:
    """Refused before any request: an extension goldset cannot write, a missing folder."""
    from goldset_tui.sampling.files import output_format

    output_format(paths.queries)


@dataclass
class Collected:
    frame: pl.DataFrame  # query_id, query, doc_id, origin
    refusals: Counter[str] = field(default_factory=Counter)
    near_duplicates: int = 0
    lines_dropped: int = 0


def query_id(doc_id: str, query: str) -> str:
    return "syn-" + hashlib.sha256(f"{doc_id}\0{query}".encode()).hexdigest()[:12]


def collect_queries(
    answers: list[tuple[str, str]], per_doc: int, threshold: float | None = None
) -> Collected:
    """``(doc_id, answer text)`` in corpus order -> the queries, refusals counted per document,
    near-duplicates across documents dropped (the first kept)."""
    from goldset_tui.machine.synth_prompt import parse_queries
    from goldset_tui.pooling.neardup import THRESHOLD, groups
    from goldset_tui.sampling.origin import ORIGIN, SYNTHETIC

    refusals: Counter[str] = Counter()
    rows: list[tuple[str, str]] = []
    dropped = 0
    for doc_id, text in answers:
        parsed = parse_queries(text, per_doc)
        dropped += parsed.dropped
        if parsed.refusal is not None:
            refusals[parsed.refusal] += 1
        rows.extend((doc_id, q) for q in parsed.queries)
    labels = groups([q for _, q in rows], THRESHOLD if threshold is None else threshold)
    kept = [row for i, row in enumerate(rows) if labels[i] == i]
    frame = pl.DataFrame(
        {
            "query_id": [query_id(d, q) for d, q in kept],
            "query": [q for _, q in kept],
            "doc_id": [d for d, _ in kept],
            ORIGIN: [SYNTHETIC] * len(kept),
        },
        schema={"query_id": pl.Utf8, "query": pl.Utf8, "doc_id": pl.Utf8, ORIGIN: pl.Utf8},
    )
    return Collected(frame, refusals, len(rows) - len(kept), dropped)


@dataclass(frozen=True)
class SynthSetup:
    request: Any  # goldset_tui.app.synth.SynthRequest (which imports this module)
    prompt: SynthPrompt
    provider: str
    model: str
    model_version: str
    sends: frozenset[str]  # which of temperature, seed the provider sends
    fingerprints: list[str]
    corpus_sha256: str
    documents: int
    answered: int


def _file(path: Path) -> dict[str, str]:
    from goldset_tui.store.files import sha256_file

    return {"path": str(path), "sha256": sha256_file(path)}


def build_manifest(paths: SynthPaths, collected: Collected, setup: SynthSetup) -> dict[str, Any]:
    from goldset_tui import __version__
    from goldset_tui.pooling.neardup import THRESHOLD
    from goldset_tui.store.files import now_iso

    request = setup.request
    model: dict[str, Any] = {
        "provider": setup.provider,
        "model": setup.model,
        "model_version": setup.model_version,
        "max_tokens": request.max_tokens,
    }
    # What was asked for, and whether the provider's SDK sent it (a model without a temperature
    # parameter samples its own way: the value alone would claim a setting that never applied).
    model["temperature"] = request.temperature
    model["temperature_sent"] = "temperature" in setup.sends
    if request.seed is not None:
        model["seed"] = request.seed
        model["seed_sent"] = "seed" in setup.sends
    if setup.fingerprints:
        model["fingerprints"] = setup.fingerprints
    corpus: dict[str, Any] = {
        "path": str(request.corpus),
        "sha256": setup.corpus_sha256,
        "documents_asked": setup.documents,
    }
    if request.sample is not None:
        corpus["sample"] = request.sample
        corpus["seed"] = request.seed
    counts: dict[str, Any] = {
        "documents": setup.documents,
        "answered": setup.answered,
        "refused": sum(n for why, n in collected.refusals.items()),
        "queries": collected.frame.height,
        "near_duplicates_dropped": collected.near_duplicates,
        "lines_not_queries": collected.lines_dropped,
    }
    if collected.refusals:
        counts["refusals"] = dict(sorted(collected.refusals.items()))
    return {
        "kind": KIND,
        "created": now_iso(),
        "goldset": __version__,
        "per_doc": request.per_doc,
        "near_duplicate_threshold": THRESHOLD,
        "prompt": {
            "sha256": setup.prompt.sha256,
            "source": setup.prompt.source,
            "text": setup.prompt.template,
        },
        "model": model,
        "corpus": corpus,
        "counts": counts,
        "outputs": {"queries": _file(paths.queries), "qrels": _file(paths.qrels)},
    }


def write_outputs(
    paths: SynthPaths, collected: Collected, setup: SynthSetup
) -> tuple[dict[str, Path], QuerySetComparison | None, dict[str, Any]]:
    from goldset_tui.app.classifying import compare_query_sets
    from goldset_tui.io.trec import write_qrels
    from goldset_tui.sampling.files import write_frame
    from goldset_tui.sampling.manifest import write_manifest
    from goldset_tui.sampling.shape_tests import A_LOT, SOMEWHAT
    from goldset_tui.store.files import atomic_write
    from goldset_tui.store.together import written_together

    comparison = None
    # The queries, their qrels and the manifest vouching for both: a failure at any of them
    # leaves the earlier run's three files whole, never new queries beside an old manifest.
    with written_together([paths.queries, paths.qrels, paths.manifest]):
        write_frame(collected.frame, paths.queries)
        qrels = collected.frame.select(
            "query_id", "doc_id", pl.lit(1, dtype=pl.Int64).alias("grade")
        )
        atomic_write(paths.qrels, lambda tmp: write_qrels(qrels, tmp))
        manifest = build_manifest(paths, collected, setup)
        request = setup.request
        if request.log is not None and collected.frame.height:
            vocab = Path(request.vocab) if request.vocab else None
            comparison = compare_query_sets(request.log, paths.queries, vocab)
            manifest["compare"] = {
                "log": _file(Path(request.log)),
                "verdict": comparison.verdict,
                "differs_in": [
                    r.feature for r in comparison.rows if r.verdict in (SOMEWHAT, A_LOT)
                ],
            }
        write_manifest(manifest, paths.manifest)
    written = {"queries": paths.queries, "qrels": paths.qrels, "manifest": paths.manifest}
    return written, comparison, manifest
