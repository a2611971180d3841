"""A store to try the machine-judge flow on the sample data (issue 15). ILLUSTRATIVE grades only.

:func:`build_sample_machine_store` copies ``sample_data/pool.jsonl`` and makes a store beside it in
which the two made-up human labellers of the sample (``judgments/alice.qrels`` and ``bob.qrels``,
see sample_data/judgments/README.md: nobody judged them) have graded every third query, as a team
that has judged part of a pool would have. The machine judge's labels
(``judgments/llm.jsonl``, also made up) cover the whole pool and are brought in with the real
command, ``goldset import --machine``, so the flow in docs/agreement.md is the one a team runs:

    python -c "from goldset_tui.machine.example import build_sample_machine_store as b; print(b('/tmp/mj'))"
    goldset import --store /tmp/mj/store --labeller llm --machine sample_data/judgments/llm.jsonl
    goldset agreement --store /tmp/mj/store --run bm25=sample_data/runs/bm25.run ...
    goldset validate --store /tmp/mj/store --labeller llm --budget 60 -o /tmp/mj/check.jsonl ...
"""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl

from goldset_tui.io.pools import load_pool
from goldset_tui.io.trec import read_qrels
from goldset_tui.store.project import Project

HUMANS = ("alice", "bob")
EVERY = 3  # the humans graded q01, q04, q07, ...: a third of the queries, every stratum


def judged_queries(query_ids: list[str]) -> list[str]:
    return sorted(query_ids)[::EVERY]


def build_sample_machine_store(folder: str | Path, sample: str | Path = "sample_data") -> Path:
    """Write ``folder/pool.jsonl`` and a store at ``folder/store``; returns the store path."""
    root, sample = Path(folder), Path(sample)
    root.mkdir(parents=True, exist_ok=True)
    pool_path = root / "pool.jsonl"
    shutil.copyfile(sample / "pool.jsonl", pool_path)
    pool = load_pool(pool_path)
    project = Project.create(root / "store", pool_path=pool_path, pool_sha256=pool.sha256)
    keep = judged_queries(pool.frame["query_id"].unique().to_list())
    for labeller in HUMANS:
        grades = read_qrels(sample / "judgments" / f"{labeller}.qrels").filter(
            pl.col("query_id").is_in(keep)
        )
        project.add_grades(
            labeller,
            grades.with_columns(
                pl.lit(None, pl.Utf8).alias("time"), pl.lit(None, pl.Utf8).alias("note")
            ),
        )
    return project.path
