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

from goldset_tui.eval.defaults import UNJUDGED_WARNING

# The report's threshold itself (seed 000), under the name this module has always exported.
UNJUDGED_ADVICE = UNJUDGED_WARNING

__all__ = ["UNJUDGED_ADVICE", "extend_command", "unjudged_advice"]


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
    parts = [
        "goldset", "pool", "--extend", pool_text, "--run", f"{name}={run_text}",
        "--depth", str(depth), "-o", new_pool,
    ]  # fmt: skip
    if store:
        parts += ["--store", str(store)]
    return " ".join(shlex.quote(p) for p in parts)


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
            out.append(
                f"{name}: {share:.0%} of its top {depth} is unjudged (above "
                f"{UNJUDGED_ADVICE:.0%}); add its documents to the pool and judge them: {command}"
            )
    return out
