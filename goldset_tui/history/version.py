"""The golden set's version: what a score was measured against (without it a later
score drop cannot be told apart from a change of the golden set itself:
docs/background.md#versioning).

A version is a plain dict (it goes into TOML and JSON as it is):

- ``pool_sha256`` and ``pool_extensions`` (how many times the pool was extended, and by which
  runs: the manifest's ``[[pool_extensions]]`` keep the whole story);
- ``corpus_sha256`` when the store knows the corpus snapshot (``[corpus]`` in the manifest);
- ``judgments`` (pairs graded in the qrels in force) and ``qrels_sha256`` (a digest of them:
  the same grades give the same digest whatever order they were read in);
- ``guidelines_sha256``, ``near_duplicate_threshold``, ``goldset`` (the program's version);
- ``machine_labels``, only when the store has machine labellers: for each, the setup behind its
  labels in force (``provider``, ``model``, ``model_version`` the provider reported,
  ``prompt_sha256``; an imported file's labels have its ``model`` when one was given), so that a
  new model or prompt is seen as a change of the set, not as a regression;
- ``synthetic_queries``, only when ``goldset synth --store`` recorded model-written queries in
  the store: their ``provider``, ``model``, ``model_version``, ``prompt_sha256`` and the
  ``queries_sha256`` of the file written (a new query set is a new golden set);
- ``id``: 12 hex digits over everything above, to compare two versions at a glance.

:func:`describe_change` says in words what moved between two versions, so that the history can
mark "the golden set changed here" instead of letting a drop read as a regression.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import polars as pl

from goldset_tui import __version__
from goldset_tui.pooling.neardup import THRESHOLD

Version = dict[str, Any]


def qrels_digest(qrels: pl.DataFrame) -> str:
    """sha256 of the qrels as sorted ``query_id<TAB>doc_id<TAB>grade`` lines: order-free."""
    lines = (
        qrels.select(
            pl.concat_str(
                pl.col("query_id").cast(pl.String),
                pl.col("doc_id").cast(pl.String),
                pl.col("grade").cast(pl.String),
                separator="\t",
            ).alias("line")
        )
        .get_column("line")
        .sort()
    )
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line.encode("utf-8") + b"\n")
    return digest.hexdigest()


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def golden_set_version(manifest: Mapping[str, Any], qrels: pl.DataFrame) -> Version:
    """The version of a store's golden set, judged by ``qrels`` (the grades the run was scored
    against, which may be one labeller's or a consensus)."""
    pool = manifest.get("pool", {})
    extensions = manifest.get("pool_extensions", [])
    version: Version = {
        "pool_sha256": str(pool.get("sha256", "")),
        "pool_extensions": [str(e.get("run", "?")) for e in extensions if isinstance(e, dict)],
        "judgments": qrels.height,
        "qrels_sha256": qrels_digest(qrels),
        "guidelines_sha256": text_digest(str(manifest.get("guidelines", ""))),
        "near_duplicate_threshold": float(manifest.get("near_duplicate_threshold", THRESHOLD)),
        "goldset": __version__,
    }
    corpus = manifest.get("corpus")
    if isinstance(corpus, dict) and isinstance(corpus.get("sha256"), str):
        version["corpus_sha256"] = corpus["sha256"]
    machines = machine_setups(manifest)
    if machines:  # absent without machines: those stores' versions are as they always were
        version["machine_labels"] = machines
    synthetic = synthetic_setup(manifest)
    if synthetic:  # absent unless `goldset synth --store` recorded its queries here
        version["synthetic_queries"] = synthetic
    version["id"] = version_id(version)
    return version


MACHINE_SETUP = ("provider", "model", "model_version", "prompt_sha256")


def machine_setups(manifest: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """labeller -> the setup of its machine labels in force (the keys of MACHINE_SETUP it has)."""
    entries = manifest.get("labellers", {})
    out: dict[str, dict[str, str]] = {}
    for entry in entries.values() if isinstance(entries, dict) else []:
        if isinstance(entry, dict) and entry.get("machine") is True:
            out[str(entry.get("name", "?"))] = {
                key: entry[key] for key in MACHINE_SETUP if isinstance(entry.get(key), str)
            }
    return dict(sorted(out.items()))


SYNTHETIC_SETUP = ("provider", "model", "model_version", "prompt_sha256", "queries_sha256")


def synthetic_setup(manifest: Mapping[str, Any]) -> dict[str, str]:
    """The setup of the synthetic queries among the store's (``[synthetic_queries]``, written by
    ``goldset synth --store``), the keys of SYNTHETIC_SETUP it has; empty without them."""
    entry = manifest.get("synthetic_queries")
    if not isinstance(entry, Mapping):
        return {}
    return {key: entry[key] for key in SYNTHETIC_SETUP if isinstance(entry.get(key), str)}


def version_id(version: Mapping[str, Any]) -> str:
    body = {k: v for k, v in version.items() if k != "id"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()[:12]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def describe_change(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What changed from ``old`` to ``new``, one short phrase a change (empty: the same set)."""
    out: list[str] = []
    added = int(new.get("judgments", 0)) - int(old.get("judgments", 0))
    if added > 0:
        out.append(f"{_plural(added, 'judgment')} added")
    elif added < 0:
        out.append(f"{_plural(-added, 'judgment')} removed")
    elif old.get("qrels_sha256") != new.get("qrels_sha256"):
        out.append("grades changed (as many judgments as before)")
    if old.get("pool_sha256") != new.get("pool_sha256"):
        before = list(old.get("pool_extensions", []))
        after = list(new.get("pool_extensions", []))
        runs = after[len(before) :] if after[: len(before)] == before else []
        if runs:
            out.append("pool extended by run " + ", ".join(runs))
        else:
            out.append("pool replaced")
    if old.get("corpus_sha256") != new.get("corpus_sha256"):
        first = old.get("corpus_sha256") is None
        out.append("corpus snapshot recorded" if first else "corpus snapshot changed")
    if old.get("guidelines_sha256") != new.get("guidelines_sha256"):
        out.append("guidelines changed")
    if old.get("near_duplicate_threshold") != new.get("near_duplicate_threshold"):
        out.append(
            f"near-duplicate threshold {old.get('near_duplicate_threshold')} -> "
            f"{new.get('near_duplicate_threshold')}"
        )
    if old.get("goldset") != new.get("goldset"):
        out.append(f"goldset {old.get('goldset')} -> {new.get('goldset')}")
    out += _machine_changes(old.get("machine_labels") or {}, new.get("machine_labels") or {})
    out += _synthetic_changes(
        old.get("synthetic_queries") or {}, new.get("synthetic_queries") or {}
    )
    return out


def _synthetic_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    if old == new:
        return []
    if not old:
        return [f"synthetic queries from model {_model(new)} added"]
    if not new:
        return [f"synthetic queries from model {_model(old)} removed"]
    if _model(old) != _model(new):
        return [
            f"synthetic queries from model {_model(new)} replaced those from model {_model(old)}"
        ]
    if old.get("prompt_sha256") != new.get("prompt_sha256"):
        return [
            "synthetic queries from another prompt "
            f"({str(old.get('prompt_sha256', '-'))[:12]} -> "
            f"{str(new.get('prompt_sha256', '-'))[:12]})"
        ]
    return [f"synthetic queries regenerated with {_model(new)}"]


def _model(setup: Mapping[str, Any]) -> str:
    return str(setup.get("model") or "unnamed")


def _machine_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """One phrase per machine labeller whose labels came from another setup."""
    out: list[str] = []
    for name in sorted(set(old) | set(new)):
        before, after = old.get(name), new.get(name)
        if before == after:
            continue
        if not isinstance(before, Mapping):
            out.append(f"machine labels from model {_model(after or {})} added ({name})")
        elif not isinstance(after, Mapping):
            out.append(f"machine labels from model {_model(before)} removed ({name})")
        elif _model(before) != _model(after):
            out.append(
                f"machine labels from model {_model(after)} replaced those from model "
                f"{_model(before)} ({name})"
            )
        elif before.get("prompt_sha256") != after.get("prompt_sha256"):
            out.append(
                f"machine labels of {name} from another prompt "
                f"({str(before.get('prompt_sha256', '-'))[:12]} -> "
                f"{str(after.get('prompt_sha256', '-'))[:12]})"
            )
        else:
            out.append(
                f"machine labels of {name}: {_model(after)} now reports version "
                f"{after.get('model_version', '-')} (was {before.get('model_version', '-')})"
            )
    return out
