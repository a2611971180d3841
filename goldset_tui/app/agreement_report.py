"""The report `goldset agreement` prints: the humans' agreement (or, with one labeller, their
self-consistency and position bias), the machine judges beside the human consensus, the system
ranking each label set gives, and the runs scored by each label set. Which label sets those are
is decided in ``app/agreement.py``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from goldset_tui.errors import InputError

if TYPE_CHECKING:
    import polars as pl

    from goldset_tui.agreement.sources import AgreementData


@dataclass(frozen=True)
class AgreementParts:
    """The humans' ratings (``data``), everyone's (``everyone``, machines included), the machine
    labellers, and the machine and system-ranking sections (``extra``, empty without them)."""

    data: AgreementData
    everyone: AgreementData
    machines: list[str]
    extra: dict[str, Any]

    @property
    def solo(self) -> bool:
        """One human labeller: nobody to agree with."""
        return bool(self.data.ratings.get_column("labeller").n_unique() < 2)


def agreement_parts(
    everyone: AgreementData,
    *,
    machine_names: list[str],
    rule: str | None,
    strata: str | None,
    seed: int,
    replicates: int,
    runs: list[str],
    measure: str,
    qrels: list[str] | None,
) -> AgreementParts:
    """Machines set apart from the humans (marked by the store, or ``machine_names`` among the
    files'), and the sections they and ``runs`` add."""
    from goldset_tui.app.agreement import humans_only, machine_part, machines_of, ranking_part

    machines = machines_of(everyone, machine_names)
    data = humans_only(everyone, machines) if machines else everyone
    extra = machine_part(
        everyone, machines, rule=rule, strata=strata, seed=seed, replicates=replicates
    ) | ranking_part(
        everyone,
        machines,
        runs=runs,
        measure=measure,
        qrels=qrels,
        rule=rule,
        strata=strata,
        seed=seed,
    )
    return AgreementParts(data, everyone, machines, extra)


def full_report(
    parts: AgreementParts, strata: pl.DataFrame | None, *, seed: int, replicates: int
) -> dict[str, Any]:
    """Two labellers or more: kappas, alpha, binary agreement, per stratum, position bias,
    self-consistency, and the machine and ranking sections."""
    from goldset_tui.agreement.position import position_bias_of
    from goldset_tui.agreement.report import agreement_report
    from goldset_tui.agreement.sources import self_consistency_of

    data = parts.data
    report = agreement_report(
        data.ratings, data.scale, strata=strata, seed=seed, replicates=replicates
    )
    report["position_bias"] = position_bias_of(data)
    repeats = self_consistency_of(data)
    if repeats is not None:
        report["self_consistency"] = repeats
    report.update(parts.extra)
    return report


def solo_report(parts: AgreementParts, where: str, *, screen: bool) -> dict[str, Any]:
    """One labeller: nobody to agree with, but blind repeats measure agreement with oneself and
    the shown positions show whether grades drift down the list.

    The JSON keeps every fixed key (null or empty where two labellers are needed) so a script
    reading it does not break; "self_consistency" and "position_bias" carry the figures. Nothing
    to show at all, or the screen asked for, is an input error naming ``where``."""
    from goldset_tui.agreement.position import position_bias_of
    from goldset_tui.agreement.report import solo_report as one_labeller
    from goldset_tui.agreement.sources import self_consistency_of

    data = parts.data
    repeats = self_consistency_of(data)
    bias = position_bias_of(data)
    if not repeats and not bias and not parts.extra:
        raise InputError(
            where,
            "agreement needs judgments from at least two labellers; one labeller's self-consistency "
            "needs blind repeats (goldset judge POOL --labeller NAME --repeat 0.05)",
        )
    if screen:
        raise InputError(
            where,
            "the agreement screen needs two labellers; without --screen the report shows this "
            "labeller's self-consistency and position bias",
        )
    report = one_labeller(data.ratings, data.scale)
    report["position_bias"] = bias
    report["self_consistency"] = repeats or []
    report.update(parts.extra)
    return report


def add_runs(
    report: dict[str, Any], parts: AgreementParts, runs: list[str], rule: str | None
) -> None:
    """The runs scored by each label set: the machines get a row each (``everyone``) but no
    vote in the consensus row."""
    if runs:
        from goldset_tui.ranking.runs import runs_by_labeller

        report["runs"] = runs_by_labeller(parts.everyone, runs, rule=rule, machines=parts.machines)
