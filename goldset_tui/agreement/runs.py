"""What disagreement does to the numbers users act on: a run scored against each labeller's
judgments and against the consensus, side by side (``goldset agreement --run``).

Each labeller is scored on the pairs they judged; scores differ both because labellers grade
differently and because they judged different pairs, which is exactly what a team choosing whose
qrels to trust needs to see.
"""

from __future__ import annotations

import polars as pl

from goldset_tui.agreement.consensus import UMA, check_rule, decide, store_rule
from goldset_tui.agreement.sources import AgreementData, parse_named_path

MEASURES = ("nDCG@10", "P@10", "AP", "RR")
CONSENSUS = "consensus"


def qrels_by_judge(data: AgreementData, rule: str | None = None) -> dict[str, pl.DataFrame]:
    """Each labeller's qrels, then the consensus qrels (pending pairs left out)."""
    ratings = data.ratings
    out = {
        name: ratings.filter(pl.col("labeller") == name).select("query_id", "doc_id", "grade")
        for name in sorted(ratings.get_column("labeller").unique().to_list())
    }
    if data.project is not None:
        from goldset_tui.agreement.adjudication import load_adjudications

        rule = check_rule(rule or store_rule(data.project))
        adjudications = load_adjudications(data.project.path)
    else:
        rule = check_rule(rule or UMA)
        adjudications = pl.DataFrame(
            schema={"query_id": pl.Utf8, "doc_id": pl.Utf8, "grade": pl.Int64, "adjudicator": pl.Utf8}
        )
    provenance = decide(ratings, adjudications, rule)
    out[CONSENSUS] = provenance.filter(pl.col("grade").is_not_null()).select("query_id", "doc_id", "grade")
    return out


def runs_by_labeller(data: AgreementData, named_runs: list[str], *, rule: str | None = None) -> list[dict]:
    """``[{"run", "qrels", "scores": {measure: mean}}]`` for every run x (labeller | consensus)."""
    from goldset_tui.errors import InputError
    from goldset_tui.eval.metrics import mean_scores
    from goldset_tui.io.trec import read_run

    try:
        judges = qrels_by_judge(data, rule)
    except ValueError as exc:  # unknown rule
        raise InputError(None, str(exc)) from None
    out = []
    for text in named_runs:
        name, path = parse_named_path(text, "--run")
        run = read_run(path)
        for judge, qrels in judges.items():
            scores = mean_scores(qrels, run, MEASURES) if qrels.height else {m: None for m in MEASURES}
            out.append({"run": name, "qrels": judge, "scores": scores})
    return out
