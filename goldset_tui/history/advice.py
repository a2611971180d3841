"""The unjudged-fraction advice `goldset eval` and `goldset report` print on every run: which run's
top k is more than 20% unjudged, and the exact `goldset pool --extend` command that adds it.

Kept apart from ``recording`` (which reads stores) so a plain `goldset eval` does not import the
store to print it.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from goldset_tui.eval.defaults import UNJUDGED_WARNING, percent_against

# The report's threshold itself (docs/background.md#unjudged-fraction), under the name this
# module has always exported.
UNJUDGED_ADVICE = UNJUDGED_WARNING

__all__ = ["CORPUS", "UNJUDGED_ADVICE", "extend_command", "unjudged_advice"]

# Where goldset cannot know the corpus file (no store, or a store that records none): a
# placeholder the advice line explains, never a command that exits 2 asking for it.
CORPUS = "CORPUS"
CORPUS_NOTE = (
    "CORPUS: the corpus file holding the new documents, which neither the store nor the pool "
    "records"
)


def extend_command(
    name: str, run_path: str | Path | None, depth: int, pool: str | Path | None, store: Any = None
) -> str:
    """The `goldset pool --extend` command that adds ``name``'s top ``depth`` to the pool."""
    pool_text = str(pool) if pool else "POOL"
    stem = Path(pool_text).stem if pool else "pool"
    suffix = Path(pool_text).suffix if pool else ".parquet"
    new_pool = (
        str(Path(pool_text).with_name(f"{stem}+{name}{suffix}")) if pool else f"pool+{name}.parquet"
    )
    run_text = str(run_path) if run_path and str(run_path) != "-" else "RUN"
    system = _unpooled_name(name, depth, pool)
    if system != name:
        new_pool = new_pool.replace(f"+{name}", f"+{system}")
    parts = [
        "goldset", "pool", "--extend", pool_text, "--run", f"{system}={run_text}",
        "--depth", str(depth), "-o", new_pool,
    ]  # fmt: skip
    if store:
        parts += ["--store", str(store)]
    # The new candidates come from a run: ids without text. The pool takes their texts from a
    # corpus, and a command without one exits 2 ("give --corpus FILE"); so the advice always names
    # it: the store's recorded corpus, or a placeholder the advice explains (CORPUS_NOTE).
    parts += ["--corpus", _recorded_corpus(store) or CORPUS]
    return " ".join(p if p == CORPUS else shlex.quote(p) for p in parts)


def _unpooled_name(name: str, depth: int, pool: str | Path | None) -> str:
    """``name``, or ``name-topK`` when the pool already holds ``name`` (pooled shallower than the
    depth evaluated): `pool --extend` refuses a system already in the pool, so the advice under
    the same name was a command that could only fail."""
    if not pool or not Path(pool).is_file():
        return name
    from goldset_tui.errors import InputError
    from goldset_tui.io.pools import load_pool  # only with a pool: eval stays light
    from goldset_tui.pooling.extension import systems_in

    try:
        pooled = systems_in(load_pool(pool).frame)
    except (InputError, OSError):
        return name
    candidate, extra = f"{name}-top{depth}", 2
    while name in pooled and candidate in pooled:
        candidate, extra = f"{name}-top{depth}-{extra}", extra + 1
    return candidate if name in pooled else name


def _recorded_corpus(store: Any) -> str | None:
    """``--corpus PATH`` when the store records the corpus its pool was extended with, so that
    running the advice keeps the golden set's versioned setup (the corpus snapshot)."""
    if not store:
        return None  # checked first: the store package imports Polars, a plain eval needs none
    from goldset_tui.errors import InputError
    from goldset_tui.store.manifest import read_manifest

    try:
        corpus = read_manifest(Path(store)).get("corpus")
    except (InputError, OSError):
        return None
    return str(corpus["path"]) if isinstance(corpus, dict) and corpus.get("path") else None


def unjudged_advice(
    unjudged: Mapping[str, float],
    run_paths: Mapping[str, str | Path | None],
    depth: int,
    *,
    pool: str | Path | None = None,
    store: str | Path | None = None,
) -> list[str]:
    """For every run whose top ``depth`` is more than 20% unjudged: the share and the command."""
    out = []
    for name, share in unjudged.items():
        if share > UNJUDGED_ADVICE:
            command = extend_command(name, run_paths.get(name), depth, pool, store)
            # The note goes before the command, so the line still ends with the whole command.
            note = f" ({CORPUS_NOTE})" if command.endswith(f" --corpus {CORPUS}") else ""
            out.append(
                f"{name}: {percent_against(share, UNJUDGED_ADVICE)} of its top {depth} is unjudged (above "
                f"{UNJUDGED_ADVICE:.0%}); add its documents to the pool and judge them{note}: {command}"
            )
    return out
