"""Replaying existing judgments in a judging order (`goldset simulate`): which queries of the
runs the qrels judge, and the replay itself (goldset_tui.judging.simulate)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from goldset_tui.errors import InputError


@dataclass(frozen=True)
class ReplayInputs:
    """The qrels and runs read, and the queries of the runs the qrels do not judge (sorted):
    they are left out of the replay, and the caller says how many."""

    qrels: pl.DataFrame
    runs: dict[str, pl.DataFrame]
    unjudged: list[str]


def read_replay_inputs(qrels_path: str, run_paths: dict[str, Path]) -> ReplayInputs:
    """Read the qrels and runs; a replay where no query of the runs is judged is an error."""
    from goldset_tui.io.trec import read_qrels, read_run

    qrels = read_qrels(qrels_path)
    runs = {n: read_run(p, tag=False) for n, p in run_paths.items()}
    judged = set(qrels.get_column("query_id").unique().to_list())
    asked = sorted({q for run in runs.values() for q in run.get_column("query_id").to_list()})
    unjudged = [q for q in asked if q not in judged]
    if len(unjudged) == len(asked):
        raise InputError(qrels_path, "no query of the runs is judged in these qrels")
    return ReplayInputs(qrels, runs, unjudged)


def default_step(budget: int) -> int:
    """A report every twentieth of the budget (rounded up), at least every judgment."""
    return max(1, -(-budget // 20))


def replay(
    inputs: ReplayInputs,
    *,
    depth: int,
    order: str,
    budget: int,
    measure: str,
    step: int | None = None,
) -> dict[str, Any]:
    """The replay's report, as `goldset simulate` prints it in JSON."""
    from goldset_tui.judging.simulate import simulate

    return simulate(
        inputs.qrels,
        inputs.runs,
        depth=depth,
        order=order,
        budget=budget,
        measure=measure,
        step=step or default_step(budget),
    )
