"""Loading qrels: a qrels file, or the grades of a store given as ``--qrels STORE`` (`goldset eval`,
`report`, `compare`, `review`), and the store's consensus.

When no ``--labeller`` picks one person:

A store judged by several people has no single set of grades. Before, the commands refused it
and a release took a detour: export the consensus to a temporary file, then evaluate that file.
Now, once the store has adjudicated (``goldset adjudicate`` recorded decisions), its consensus is
the qrels, as ``goldset qrels --consensus`` exports it, and the command says so on stderr; before
any adjudication, the refusal names each labeller with their number of judgments, so the line says
which ``--labeller`` to pick, and how to get a consensus instead.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from goldset_tui.errors import InputError
from goldset_tui.text import visible

if TYPE_CHECKING:  # Polars lazily: `goldset eval` on small files reads them without it
    import polars as pl

    from goldset_tui.adjudication.consensus import ConsensusExport
    from goldset_tui.io.sources import Source
    from goldset_tui.store.project import Project


def people_who_judged(project: Project) -> list[str]:
    """Labellers with grades in force, machines and the pool's own prior judgments left out."""
    from goldset_tui.io.pool_schema import PRIOR_LABELLER
    from goldset_tui.store.machine import machine_labellers

    judged = project.judgments().get_column("labeller").unique().sort().to_list()
    left_out = {*machine_labellers(project.manifest), PRIOR_LABELLER}
    return [name for name in judged if name not in left_out]


Warn = Callable[[str], None]


def _on_stderr(warning: str) -> None:
    print(f"goldset: warning: {warning}", file=sys.stderr)


def _note_on_stderr(note: str) -> None:
    print(f"goldset: {note}", file=sys.stderr)


def qrels_without_labeller(
    project: Project, warn: Warn = _on_stderr, note: Warn = _note_on_stderr
) -> pl.DataFrame:
    """One labeller's qrels, the adjudicated consensus of several, or one line saying whom to
    pick (InputError). ``warn`` gets the line about pairs still pending adjudication, ``note``
    the one saying the consensus is used: a command prints them on stderr, a running screen
    (the review's ``l``) must show them itself, as stderr would garble it."""
    people = people_who_judged(project)
    if len(people) <= 1:
        return project.qrels(None)  # one person (or a machine alone): as before
    from goldset_tui.adjudication.decisions import load_adjudications

    names = ", ".join(visible(p, keep_newlines=False) for p in people)
    if load_adjudications(project.path).height:
        qrels = consensus_qrels(project, warn=warn)  # how many pairs still wait for a decision
        note(
            f"the qrels are the adjudicated consensus of {names} ({qrels.height:,} "
            "pairs, as `goldset qrels --consensus`); --labeller NAME takes one person's"
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


def consensus_qrels(
    project: Project, include_machine: bool = False, *, warn: Warn = _on_stderr
) -> pl.DataFrame:
    """The consensus qrels; says (to ``warn``: stderr by default) how many pairs were left out as
    pending, because any later evaluation would count those documents as not relevant."""
    return consensus_for_export(project, include_machine, warn=warn).qrels


def consensus_for_export(
    project: Project, include_machine: bool = False, *, warn: Warn = _on_stderr, write: bool = True
) -> ConsensusExport:
    """The consensus (see :func:`consensus_qrels`) with its provenance: written already, or with
    ``write`` False left for :func:`write_export` to write together with the qrels file."""
    try:
        from goldset_tui.adjudication.consensus import consensus_export
    except ImportError:
        raise InputError(
            project.path, "consensus qrels are not available in this version of goldset"
        ) from None
    if not write:
        export = consensus_export(project, include_machine=include_machine, write=False)
    elif include_machine:
        export = consensus_export(project, include_machine=True)
    else:  # called as before the write option (a test stands in for it with one argument)
        export = consensus_export(project)
    if export.pending:
        them = "them" if export.pending != 1 else "it"
        warn(
            f"{export.pending} pair{'s' * (export.pending != 1)} pending adjudication "
            f"{'were' if export.pending != 1 else 'was'} left out of the consensus (an evaluation will count "
            f"{them} as not relevant); decide {them} with `goldset adjudicate "
            f"--store {visible(str(project.path))}`; how every pair was decided: {visible(str(export.provenance))}"
        )
    return export


def write_export(output: Path, data: bytes, export: ConsensusExport | None = None) -> None:
    """The exported qrels file; with a consensus whose provenance is not written yet, that file
    too, the two written together (store/together.py): written one after the other, a failure at
    the qrels left a new provenance, describing pairs and grades the old qrels file beside it
    does not hold, after a command that said it failed."""
    from goldset_tui.store.files import atomic_write_bytes

    if export is None or export.table is None:
        atomic_write_bytes(output, data)
        return
    from goldset_tui.adjudication.consensus import write_provenance
    from goldset_tui.store.together import written_together

    with written_together([export.provenance, output]):
        write_provenance(export.table, export.provenance)
        atomic_write_bytes(output, data)


def load_qrels(
    value: str | Source, labeller: str | None = None, *, subtopics: bool = False
) -> pl.DataFrame:
    """A qrels file (or one already opened), or the qrels of a goldset store folder: the
    labeller's, else as :func:`qrels_without_labeller` decides. ``subtopics``: read the second
    column as the subtopic (diversity qrels, for alpha_nDCG)."""
    path = Path(value) if isinstance(value, str) else Path(value.path)
    if isinstance(value, str) and path.is_dir():
        if subtopics:
            raise InputError(path, "alpha_nDCG needs diversity qrels (query subtopic doc grade)")
        from goldset_tui.store.project import Project  # lazily: only a store needs it

        project = Project.open(path)
        say_store_warnings(project, _on_stderr)
        qrels = project.qrels(labeller) if labeller else qrels_without_labeller(project)
        if qrels.height == 0:
            raise InputError(path, "the store holds no judgments yet")
        return qrels
    from goldset_tui.io.trec import read_qrels, read_subtopic_qrels

    return read_subtopic_qrels(value) if subtopics else read_qrels(value)


def store_qrels(
    project: Project, labeller: str | None, warn: Warn = _on_stderr, note: Warn = _note_on_stderr
) -> pl.DataFrame:
    """``labeller``'s qrels if the store knows that labeller, else the store's only labeller's;
    a store without judgments is an error."""
    known = labeller is not None and labeller in project.labellers()
    qrels = project.qrels(labeller) if known else qrels_without_labeller(project, warn, note)
    if qrels.height == 0:
        raise InputError(project.path, "the store holds no judgments yet")
    return qrels


def store_grades_in_force(
    project: Project, labeller: str | None, warn: Warn = _on_stderr, note: Warn = _note_on_stderr
) -> pl.DataFrame:
    """The qrels a store gives `goldset review --store DIR` and `goldset report --qrels DIR`: the
    labeller's own grades (the only labeller's when the labeller has none yet), laid over the
    judgments the pool came with (the ``prior`` labeller, imported by `goldset judge`) when the
    store holds them. Judging from the review screen merges the same way, so reopening shows what
    the screen showed, not the prior grades alone with the labeller's [?] again or the
    labeller's alone with the prior's gone."""
    from goldset_tui.io.pools import PRIOR_LABELLER

    known = project.labellers()
    if labeller == PRIOR_LABELLER or PRIOR_LABELLER not in known or labeller not in known:
        return store_qrels(project, labeller, warn, note)
    return merge_qrels(project.qrels(PRIOR_LABELLER), project.qrels(labeller))


def merge_qrels(base: pl.DataFrame, new: pl.DataFrame) -> pl.DataFrame:
    """``new`` grades override ``base`` on the pairs both hold (the latest labeller wins)."""
    import polars as pl

    return pl.concat(
        [base.join(new, on=["query_id", "doc_id"], how="anti"), new.select(base.columns)]
    )


def report_qrels(value: str, labeller: str | None = None, warn: Warn = _on_stderr) -> pl.DataFrame:
    """The qrels `goldset report` and `review` read: a file, or a store's grades in force
    (``warn``: see :func:`qrels_without_labeller`)."""
    path = Path(value)
    if path.is_dir():
        from goldset_tui.store.project import Project

        project = Project.open(path)
        say_store_warnings(project, warn)
        return store_grades_in_force(project, labeller, warn)
    from goldset_tui.io.trec import read_qrels

    return read_qrels(path)


def say_store_warnings(project: Project, warn: Warn) -> None:
    """What the store said as it opened (a torn journal line dropped, answers of an interrupted
    machine judge not in its labels yet), passed on to whoever computes a number from its grades:
    a report or an evaluation on labels that miss answers must say so."""
    for warning in dict.fromkeys(project.warnings):
        warn(warning)
