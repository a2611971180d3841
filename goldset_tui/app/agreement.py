"""The business rules of `goldset agreement` (and its screen): which label sets are whose, which
consensus stands for the humans, which pairs of label sets a system ranking compares, and the
machine judges kept out of the humans' agreement.

- A store marks its own machine judges (``goldset import --machine``); with ``--qrels`` files,
  the caller names them. Machines never vote: the humans' agreement is reported as before, and
  each machine is compared with the human consensus apart.
- The consensus is the store's (its rule and its adjudications) or, for files, the decision rule
  applied to the humans' grades with no adjudication; a consensus needs two humans.
- A system ranking compares every human and the consensus against every machine; without
  machines, every two labellers in the order given (the first is tau_AP's reference).
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from goldset_tui.errors import InputError

if TYPE_CHECKING:
    from goldset_tui.agreement.sources import AgreementData


def load_agreement(
    store: str | Path | None, qrels: list[str] | None, scale: str | None = None
) -> AgreementData:
    """The ratings of a store, else of NAME=PATH qrels files; ``scale`` ``MIN-MAX`` or None."""
    from goldset_tui.agreement.sources import from_qrels, from_store, parse_scale

    grades = parse_scale(scale) if scale else None
    if store:
        return from_store(store, grades)
    return from_qrels(qrels or [], grades)


def refuse_consensus_name(data: AgreementData) -> None:
    """A label set named ``consensus`` would replace the human consensus in every table."""
    from goldset_tui.store.machine import CONSENSUS, CONSENSUS_TAKEN

    if CONSENSUS in data.ratings.get_column("labeller").unique().to_list():
        if data.project is None:
            raise InputError(None, f"--qrels consensus=...: {CONSENSUS_TAKEN} (e.g. adjudicated=)")
        raise InputError(data.project.path, CONSENSUS_TAKEN, column="labeller")


def machines_of(data: AgreementData, named: list[str]) -> list[str]:
    """The machine labellers: marked in the store's manifest, or ``named`` among the files'."""
    from goldset_tui.store.machine import machine_labellers

    if data.project is not None:
        if named:
            raise InputError(None, "--machine goes with --qrels; a store marks its own machines")
        return machine_labellers(data.project.manifest)
    names = set(data.ratings.get_column("labeller").unique().to_list())
    for name in named:
        if name not in names:
            raise InputError(None, f"--machine {name!r} is not one of the --qrels names")
    return sorted(set(named))


def humans_only(data: AgreementData, machines: list[str]) -> AgreementData:
    """The human labellers' data: their agreement is reported as before, the machine apart."""
    from goldset_tui.agreement.units import with_unit_ids

    keep = ~pl.col("labeller").is_in(machines)
    humans = data.ratings.filter(keep)
    if humans.height == 0:
        raise InputError(
            where(data), "a machine judge is compared with human labellers: there are none"
        )
    history = data.history.filter(keep) if data.history is not None else None
    return replace(data, ratings=with_unit_ids(humans.drop("unit")), history=history)


def where(data: AgreementData) -> str:
    """The ratings' origin, as an error line names it."""
    return str(data.project.path) if data.project is not None else "the qrels"


def machine_part(
    data: AgreementData,
    machines: list[str],
    *,
    rule: str | None,
    strata: str | None,
    seed: int,
    replicates: int,
) -> dict[str, Any]:
    """``{"machine": [...]}`` (see machine/agreement.py), or ``{}`` with no machine labeller."""
    if not machines:
        return {}
    from goldset_tui.adjudication.consensus import UMA, consensus_with_provenance, decide
    from goldset_tui.agreement.sources import strata_of
    from goldset_tui.machine.agreement import machine_report

    humans = data.ratings.filter(~pl.col("labeller").is_in(machines))
    consensus: pl.DataFrame | None
    try:
        if data.project is not None:
            consensus, _ = consensus_with_provenance(data.project, rule)
        elif humans.get_column("labeller").n_unique() >= 2:
            from goldset_tui.adjudication.decisions import no_adjudications

            none = no_adjudications()
            decided = decide(humans, none, rule or UMA)
            consensus = decided.filter(pl.col("grade").is_not_null())
        else:
            consensus = None
    except ValueError as exc:  # an unknown --rule
        raise InputError(None, str(exc)) from None
    report = machine_report(
        data.ratings,
        data.scale,
        machines,
        consensus=consensus,
        strata=strata_of(data, strata),
        seed=seed,
        replicates=replicates,
    )
    return {"machine": report}


def ranking_part(
    data: AgreementData,
    machines: list[str],
    *,
    runs: list[str],
    measure: str,
    qrels: list[str] | None,
    rule: str | None,
    strata: str | None,
    seed: int,
) -> dict[str, Any]:
    """``{"system_ranking": ...}`` with ``runs`` (see ranking/systems.py), else ``{}``.

    Label sets: each human, the human consensus (two humans or more), each machine. Pairs: every
    human and the consensus against every machine; without machines, every two labellers in the
    order the ``qrels`` NAME=PATH specs give them (the first is tau_AP's reference)."""
    if not runs:
        return {}
    from goldset_tui.agreement.sources import strata_of
    from goldset_tui.eval.measures import arithmetic_measure
    from goldset_tui.ranking.runs import qrels_by_judge
    from goldset_tui.ranking.systems import system_ranking
    from goldset_tui.specs import parse_named_paths

    # refuses an unknown measure with a suggestion, and GMAP (systems ranked by arithmetic means)
    arithmetic_measure(measure, option="--measure", does="the system ranking compares")
    humans = humans_only(data, machines) if machines else data
    try:
        sets, _ = qrels_by_judge(humans, rule)
    except ValueError as exc:  # unknown rule
        raise InputError(None, str(exc)) from None
    if humans.ratings.get_column("labeller").n_unique() < 2:
        sets.pop("consensus", None)
    for name in machines:
        sets[name] = data.ratings.filter(pl.col("labeller") == name).select(
            "query_id", "doc_id", "grade"
        )
    if machines:
        pairs = [(a, m) for a in sets if a not in machines for m in machines]
    else:
        given = [n for n in parse_named_paths(qrels or [], "--qrels") if n in sets]
        names = given or [n for n in sets if n != "consensus"]
        pairs = list(combinations(names, 2))
    ranking = system_ranking(
        sets, named_runs(runs), measure, pairs, strata=strata_of(data, strata), seed=seed
    )
    return {"system_ranking": ranking}


def named_runs(specs: list[str]) -> dict[str, pl.DataFrame]:
    """``--run NAME=PATH`` runs, read whole (the screen's top k view, the system ranking)."""
    from goldset_tui.io.trec import read_run
    from goldset_tui.specs import parse_named_paths

    return {
        name: read_run(path, tag=False) for name, path in parse_named_paths(specs, "--run").items()
    }
