"""How `goldset eval` prints its results: trec_eval's text layout, or JSON (a helper, not a
command).

Text is trec_eval's: the measure name left-aligned in 22 characters, a tab, the query (or
``all``), a tab, the value (counts as integers, the rest with 4 decimals). With
``--trec-eval-compat`` the names are trec_eval's (``map``, ``P_10``; a measure trec_eval does not
have keeps goldset's name), in trec_eval's order (its table of measures, query by query), a
``runid`` line comes first among the ``all`` lines (the run's tag column) when it is asked for
(``-m runid``, a trec_eval group such as ``official``, or trec_eval's default set), and
``num_q`` and ``gm_map`` have no per-query line, as
in trec_eval's output, so a script reading trec_eval's output reads this one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from goldset_tui.eval.measures import MEASURES, Measure
from goldset_tui.text import visible

if TYPE_CHECKING:
    from goldset_tui.app.scoring import RunResult

# trec_eval 10's table of measures (measures.c, te_trec_measures): the order it prints them in,
# whatever the order of -m; within one measure, by its cutoff or recall level.
TREC_EVAL_ORDER = (
    *["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref"],
    *["recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref"],
    *["Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel"],
    *["Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P"],
    *["set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "yaap", "rbp", "rbp_resid"],
    "unj",
)


def _value_text(m: Measure, value: float) -> str:
    return str(round(value)) if m.is_count else f"{value:.4f}"


def _json_value(m: Measure, value: float) -> float | int:
    return round(value) if m.is_count else value


def _label(m: Measure, compat: bool, level: int) -> str:
    """trec_eval's name under compat, when trec_eval would print this very measure: its
    relevance level is the run's -l (or it takes none)."""
    if not compat or m.trec_eval_name is None:
        return str(m)
    same_level = m.rel == level or "rel" not in MEASURES[m.name][1]
    return m.trec_eval_name if same_level else str(m)


def trec_eval_order(measures: list[Measure]) -> list[Measure]:
    """``measures`` in the order trec_eval prints them: its table's order, then the cutoff or
    recall level; measures trec_eval does not have last, in the order given."""

    def key(indexed: tuple[int, Measure]) -> tuple[int, float, int]:
        index, m = indexed
        name = m.trec_eval_name
        families = [f for f in TREC_EVAL_ORDER if name == f or (name or "").startswith(f + "_")]
        if name is None or not families:
            return (len(TREC_EVAL_ORDER), 0.0, index)
        family = max(families, key=len)
        return (TREC_EVAL_ORDER.index(family), m.level or float(m.cutoff or 0), index)

    return [m for _, m in sorted(enumerate(measures), key=key)]


def text_lines(
    results: dict[str, RunResult],
    measures: list[Measure],
    *,
    per_query: bool,
    compat: bool,
    level: int = 1,
    runid: bool | None = None,
) -> list[str]:
    """trec_eval's layout; a run-name column first when there are several runs. Under
    ``compat`` the measures come in trec_eval's order, and the ``runid`` line comes first
    among the ``all`` lines when ``runid`` (trec_eval prints it for its default measures and
    for ``-m runid``, not for a -m list without it; so does goldset, with or without compat)."""
    several = len(results) > 1
    by_name = {str(m): m for m in measures}
    if compat:
        measures = trec_eval_order(measures)
        rank = {str(m): i for i, m in enumerate(measures)}
    lines = []
    for name, result in results.items():
        prefix = f"{visible(name, keep_newlines=False)}\t" if several else ""
        rows = result.rows
        if compat:  # query by query, each query's measures in trec_eval's order
            rows = sorted(rows, key=lambda row: (row[0], rank[row[1]]))
        if per_query:
            for qid, measure, value in rows:
                m = by_name[measure]
                if compat and m.entry.all_line_only:  # trec_eval prints it in `all` only
                    continue
                # Ids come from data: a control character must not reach the terminal.
                shown = visible(qid, keep_newlines=False)
                lines.append(
                    f"{prefix}{_label(m, compat, level):<22}\t{shown}\t{_value_text(m, value)}"
                )
        if compat if runid is None else runid:
            tag = visible(result.tag or name, keep_newlines=False)
            lines.append(f"{prefix}{'runid':<22}\tall\t{tag}")
        for m in measures:
            shown_mean = _value_text(m, result.means[str(m)])
            lines.append(f"{prefix}{_label(m, compat, level):<22}\tall\t{shown_mean}")
    return lines


def json_document(
    results: dict[str, RunResult], measures: list[Measure], *, per_query: bool
) -> dict[str, Any]:
    """``{"runs": {name: {"runid", "queries", "mean", "per_query"?}}, "aliases"?}``."""
    by_name = {str(m): m for m in measures}
    runs: dict[str, Any] = {}
    for name, result in results.items():
        entry: dict[str, Any] = {
            "runid": result.tag,
            "queries": {
                "evaluated": len(result.queries.evaluated),
                "missing_from_run": result.queries.missing_from_run,
                "only_in_run": result.queries.only_in_run,
                "left_out_no_relevant": result.queries.left_out_no_relevant,
            },
            "mean": {k: _json_value(by_name[k], v) for k, v in result.means.items()},
        }
        if per_query:
            table: dict[str, dict[str, float | int]] = {}
            for qid, measure, value in result.rows:
                table.setdefault(qid, {})[measure] = _json_value(by_name[measure], value)
            entry["per_query"] = table
        runs[name] = entry
    doc: dict[str, Any] = {"runs": runs}
    resolved = {m.alias: str(m) for m in measures if m.alias}
    if resolved:
        doc["aliases"] = resolved
    return doc
