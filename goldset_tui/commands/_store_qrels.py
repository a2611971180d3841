"""The qrels of a store given as ``--qrels STORE`` (`goldset eval`, `report`, `compare`,
`review`) when no ``--labeller`` picks one person.

A store judged by several people has no single set of grades. Before, the commands refused it
and a release took a detour: export the consensus to a temporary file, then evaluate that file.
Now, once the store has adjudicated (``goldset adjudicate`` recorded decisions), its consensus is
the qrels, as ``goldset qrels --consensus`` exports it, and the command says so on stderr; before
any adjudication, the refusal names each labeller with their number of judgments, so the line says
which ``--labeller`` to pick, and how to get a consensus instead.
"""

from __future__ import annotations

import sys

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.text import visible


def people_who_judged(project) -> list[str]:  # noqa: ANN001 - a store.Project
    """Labellers with grades in force, machines and the pool's own prior judgments left out."""
    from goldset_tui.io.pool_schema import PRIOR_LABELLER
    from goldset_tui.store.machine import machine_labellers

    judged = project.judgments().get_column("labeller").unique().sort().to_list()
    left_out = {*machine_labellers(project.manifest), PRIOR_LABELLER}
    return [name for name in judged if name not in left_out]


def qrels_without_labeller(project) -> pl.DataFrame:  # noqa: ANN001 - a store.Project
    """One labeller's qrels, the adjudicated consensus of several, or one line saying whom to
    pick (InputError)."""
    people = people_who_judged(project)
    if len(people) <= 1:
        return project.qrels(None)  # one person (or a machine alone): as before
    from goldset_tui.adjudication.decisions import load_adjudications

    names = ", ".join(visible(p, keep_newlines=False) for p in people)
    if load_adjudications(project.path).height:
        from goldset_tui.commands.qrels import consensus

        qrels = consensus(project)  # says how many pairs still wait for a decision
        print(
            f"goldset: the qrels are the adjudicated consensus of {names} ({qrels.height:,} "
            "pairs, as `goldset qrels --consensus`); --labeller NAME takes one person's",
            file=sys.stderr,
        )
        return qrels
    current = project.judgments()
    counts = dict(current.group_by("labeller").len().iter_rows())
    picks = ", ".join(
        f"--labeller {visible(p, keep_newlines=False)} ({counts.get(p, 0):,} judgments)"
        for p in people
    )
    raise InputError(
        project.path,
        f"{len(people)} people judged this store: pick one with {picks}; or decide their "
        f"disagreements with `goldset adjudicate --store {visible(str(project.path))}`, and "
        "their consensus is used",
    )
