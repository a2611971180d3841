"""The decision block of a :class:`~goldset_tui.report.model.Report`: what `goldset report`
writes under ``decisions`` and the report screen shows on ``d``, and what `goldset route` prints
with its own routing, precisions and second log."""

from __future__ import annotations

from goldset_tui.decisions.block import PER_N, DecisionBlock, decision_block
from goldset_tui.decisions.router_error import precisions
from goldset_tui.decisions.routing import Routing
from goldset_tui.decisions.sensitivity import sensitivity
from goldset_tui.eval.headline import STRATUM_MEANS, estimand_text
from goldset_tui.io.strata_and_traffic import POPULATION
from goldset_tui.report.model import Report

NEEDS = "the decision block needs --traffic and at least two runs"


def decision_estimand(report: Report) -> str:
    """What the block's overall figures estimate: the report's own words when its traffic-weighted
    headline is the strata's means by share; otherwise said apart, since routing mixes strata and
    is weighed stratum by stratum."""
    if report.weighted_kind == STRATUM_MEANS and "weighted" in report.estimands:
        return report.estimands["weighted"]
    plain = estimand_text(STRATUM_MEANS, report.metric, binary=report.binary).split(":")[0]
    return (
        f"{plain}: every option is weighed stratum by stratum (a router sends whole strata), "
        "so these figures are the strata's plain means by share, beside the report's "
        "per-search headline, which also weighs each query by its count"
    )


def shares_of(report: Report) -> dict[str, float]:
    if report.traffic is None:
        return {}
    return {str(s): float(w) for s, w in report.traffic.select("stratum", "share").iter_rows()}


def report_decisions(
    report: Report,
    *,
    routing: Routing | None = None,
    precision: dict[str, float] | None = None,
    confusion: dict[str, dict[str, int]] | None = None,
    baseline: str | None = None,
    now: dict[str, float] | None = None,
    per: int = PER_N,
) -> DecisionBlock | None:
    """The block, or None without traffic shares or with fewer than two runs (``NEEDS``).
    Without ``routing`` every stratum goes to its best single system; without ``precision`` or
    ``confusion`` the router is assumed never wrong, and the block says so."""
    if report.traffic is None or len(report.systems) < 2 or report.strata_frame is None:
        return None
    shares = shares_of(report)
    population = (
        {str(s): float(n) for s, n in report.traffic.select("stratum", POPULATION).iter_rows()}
        if POPULATION in report.traffic.columns
        else None
    )
    routing = routing or Routing(best_per_stratum=True)
    strata = [s for s in report.strata if s in shares]
    given = precisions(strata, shares, precision or {}, confusion)
    block = decision_block(
        report.scores,
        report.strata_frame.filter(report.strata_frame.get_column("stratum").is_in(strata)),
        {s: shares[s] for s in strata},
        metric=report.metric,
        estimand=decision_estimand(report),
        systems=report.systems,
        fused=report.fused,
        routing=routing,
        precision=given,
        table_method=report.method,
        binary=report.binary,
        bounded=report.bounded,
        baseline=baseline,
        per=per,
        population=population,
    )
    block.sensitivity, block.traffic_now = sensitivity(
        report.scores,
        report.strata_frame,
        block.shares,
        report.systems,
        bounded=report.bounded,
        binary=report.binary,
        now=now,
        population=population,
    )
    block.notes = _notes(report, block, routing)
    return block


def _notes(report: Report, block: DecisionBlock, routing: Routing) -> list[str]:
    out = []
    # Only the strata no --route names fall back to their best run: say which, so that a
    # stratum the user routed by hand is not described as chosen by the table.
    fell_back = [s for s in block.strata if s not in routing.rules]
    if routing.best_per_stratum and fell_back:
        which = (
            "each stratum is"
            if len(fell_back) == len(block.strata)
            else "the strata no --route names (" + ", ".join(fell_back) + ") are each"
        )
        out.append(
            f"{which} routed to the system that scored best on it, chosen on the same "
            "queries it is scored on: on a small stratum the winner of two noisy means flatters "
            "itself, so read the routed row as what the table suggests, not as a measurement"
        )
    assumed = [p.stratum for p in block.precision if p.source == "assumed 1"]
    if assumed and len(assumed) == len(block.precision):
        out.append(
            "no router precision given (--precision STRATUM=P or --spotcheck LABELS): the "
            "router is assumed never wrong, so the routed row with errors equals the routed row"
        )
    unshared = [s for s in report.strata if s not in block.shares]
    if unshared:
        out.append(
            "golden-set strata without a traffic share, left out of every option: "
            + ", ".join(unshared)
        )
    now = block.traffic_now
    if now is not None and abs(now["shares_sum"] - 1.0) > 1e-6:
        out.append(
            f"the other log's shares sum to {now['shares_sum']:.4f}, not 1: its gaps are not "
            "renormalised, as the report's weighted headline is not"
        )
    spot = [p.stratum for p in block.precision if p.source == "spot-check"]
    if spot:
        out.append(
            "the spot-check draws distinct queries alike, so its precision is per distinct query; "
            "per search it is higher where the router files frequent queries better: "
            + ", ".join(spot)
        )
    small = [s for s in block.strata if s in set(report.table.filter("small")["stratum"])]
    if small:
        out.append("strata under 40 queries, read as counts: " + ", ".join(small))
    return out
