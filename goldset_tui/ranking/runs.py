"""What disagreement does to the numbers users act on: a run scored against each labeller's
judgments and against the consensus, side by side (``goldset agreement --run``).

Each labeller is scored on the pairs they judged; scores differ both because labellers grade
differently and because they judged different pairs, which is exactly what a team choosing whose
qrels to trust needs to see.

The consensus leaves undecided (pending) pairs out, and they must not count as judged not
relevant: that would put the consensus below every labeller. A grade of -1 ("pooled but
unjudged") does not help, since P@k, RR and nDCG still count such a document as a miss. So the
pending documents are removed from the run before scoring the consensus, as trec_eval's -J does
for unjudged documents ("condensed list"): the documents below them move up. The number of pending
pairs, and how many of them the run retrieved, sit beside the consensus row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from goldset_tui.adjudication.consensus import UMA, check_rule, decide, store_rule
from goldset_tui.agreement.sources import AgreementData
from goldset_tui.specs import parse_named_paths

MEASURES = ("nDCG@10", "P@10", "AP", "RR")
CONSENSUS = "consensus"


def qrels_by_judge(
    data: AgreementData, rule: str | None = None, machines: Sequence[str] = ()
) -> tuple[dict[str, pl.DataFrame], pl.DataFrame]:
    """(each labeller's qrels then the consensus qrels, the pending pairs: query_id, doc_id).

    The consensus is the humans': a machine labeller (``machines``, and those a store's manifest
    marks) has its own qrels but never a vote, as in ``goldset qrels --consensus``."""
    ratings = data.ratings
    out = {
        name: ratings.filter(pl.col("labeller") == name).select("query_id", "doc_id", "grade")
        for name in sorted(ratings.get_column("labeller").unique().to_list())
    }
    machines = list(machines)
    if data.project is not None:
        from goldset_tui.adjudication.decisions import load_adjudications
        from goldset_tui.store.machine import machine_labellers

        machines += machine_labellers(data.project.manifest)
        rule = check_rule(rule or store_rule(data.project))
        adjudications = load_adjudications(data.project.path)
    else:
        from goldset_tui.adjudication.decisions import no_adjudications

        rule = check_rule(rule or UMA)
        adjudications = no_adjudications()
    humans = ratings.filter(~pl.col("labeller").is_in(machines))
    provenance = decide(humans, adjudications, rule)
    out[CONSENSUS] = provenance.filter(pl.col("grade").is_not_null()).select(
        "query_id", "doc_id", "grade"
    )
    pending = provenance.filter(pl.col("grade").is_null()).select("query_id", "doc_id")
    return out, pending


def runs_by_labeller(
    data: AgreementData,
    named_runs: list[str],
    *,
    rule: str | None = None,
    machines: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """``[{"run", "qrels", "scores": {measure: mean}}]`` for every run x (labeller | consensus).

    The consensus row also has ``pending`` (pairs no rule or adjudicator has decided yet) and
    ``pending_retrieved`` (how many of those the run retrieved; they were taken out of the run)."""
    from goldset_tui.errors import InputError
    from goldset_tui.eval.metrics import mean_scores
    from goldset_tui.io.trec import read_run

    try:
        judges, pending = qrels_by_judge(data, rule, machines)
    except ValueError as exc:  # unknown rule
        raise InputError(None, str(exc)) from None
    out = []
    for name, path in parse_named_paths(named_runs, "--run").items():
        run = read_run(path)
        for judge, qrels in judges.items():
            row: dict[str, Any] = {"run": name, "qrels": judge}
            scored = run
            if judge == CONSENSUS:
                # Without the rank column the evaluation ranks the condensed run afresh.
                scored = run.join(pending, on=["query_id", "doc_id"], how="anti").select(
                    "query_id", "doc_id", "score"
                )
                row |= {"pending": pending.height, "pending_retrieved": run.height - scored.height}
            scores = (
                mean_scores(qrels, scored, MEASURES)
                if qrels.height
                else {m: None for m in MEASURES}
            )
            out.append(row | {"scores": scores})
    return out
