"""The agreement report as Markdown, for people (``goldset agreement --format md``).

A figure with an interval reads ``0.864 [0.818, 0.900]``: the 95% interval in brackets, drawn by
resampling whole queries (a line under the tables says so in words)."""

from __future__ import annotations

from typing import Any

import polars as pl

from goldset_tui.agreement.position import MIN_TREND_MINUTES
from goldset_tui.markdown_text import md_literal
from goldset_tui.pvalue import p_value_text


def num(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def with_ci(x: float | None, ci: list[float] | None) -> str:
    return num(x) if x is None or ci is None else f"{num(x)} [{num(ci[0])}, {num(ci[1])}]"


def to_markdown(
    report: dict[str, Any], disagreements: pl.DataFrame | None = None, *, top: int = 20
) -> str:
    lo, hi = report["scale"]
    lines = [
        "# Agreement between labellers",
        "",
        f"{len(report['labellers'])} labellers ({', '.join(map(md_literal, report['labellers']))}), "
        f"{report['units']} units (query-document pairs judged by at least one of them; each pair "
        "of labellers below counts only the units both judged), scale "
        f"{lo}-{hi}.",
        "",
        "## Over all labellers",
        "",
        *(
            ["Figures read value [95% interval over queries] (how, at the end).", ""]
            if report.get("ci_method")
            else []
        ),
        "| measure | value |",
        "|---|---|",
    ]
    alpha = report["alpha"]
    lines += [
        f"| Krippendorff's alpha, {level} | {with_ci(alpha[level], alpha[f'{level}_ci95'])} |"
        for level in ("nominal", "ordinal", "interval")
    ]
    lines += [
        f"| Fleiss' kappa | {num(report['fleiss_kappa'])}"
        + ("" if report["fleiss_kappa"] is not None else " (units have unequal numbers of ratings)")
        + " |",
        "",
        "## Pairs of labellers",
        "",
        "| a | b | units both judged | agreement | kappa | kappa linear | kappa quadratic |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in report["pairs"]:
        figures = " | ".join(
            with_ci(p[key], p[f"{key}_ci95"])
            for key in ("agreement", "kappa", "kappa_linear", "kappa_quadratic")
        )
        lines.append(f"| {md_literal(p['a'])} | {md_literal(p['b'])} | {p['n']} | {figures} |")
    for p in report["pairs"]:
        grades = list(range(lo, hi + 1))
        lines += [
            "",
            f"Confusion, {md_literal(p['a'])} (rows) x {md_literal(p['b'])} (columns):",
            "",
        ]
        lines.append("| | " + " | ".join(map(str, grades)) + " |")
        lines.append("|---" * (len(grades) + 1) + "|")
        for g, row in zip(grades, p["confusion"], strict=True):
            lines.append(f"| **{g}** | " + " | ".join(map(str, row)) + " |")
    lines += [
        "",
        "## Binary agreement at each cut-off",
        "",
        "| relevant if grade >= | alpha | agreement |",
        "|---|---|---|",
    ]
    for b in report["binary"]:
        lines.append(
            f"| {b['threshold']} | {with_ci(b['alpha'], b['alpha_ci95'])} "
            f"| {with_ci(b['agreement'], b['agreement_ci95'])} |"
        )
    if report["strata"]:
        lines += [
            "",
            "## Per stratum",
            "",
            "| stratum | queries | units rated twice or more | alpha ordinal |",
            "|---|---|---|---|",
        ]
        for s in report["strata"]:
            lines.append(
                f"| {md_literal(s['stratum'])} | {s['queries']} | {s['n']} "
                f"| {with_ci(s['alpha_ordinal'], s['alpha_ordinal_ci95'])} |"
            )
    lines += self_consistency_lines(report)
    lines += position_lines(report)
    if report.get("runs"):
        lines += ["", "## A run judged by each labeller and by the consensus", ""]
        lines += run_table(report["runs"])
        lines += pending_note(report["runs"])
    if disagreements is not None and disagreements.height:
        lines += [
            "",
            f"## Largest disagreements ({min(top, disagreements.height)} of {disagreements.height})",
            "",
            "| query | document | spread | grades |",
            "|---|---|---|---|",
        ]
        for row in disagreements.head(top).iter_rows(named=True):
            lines.append(
                f"| {md_literal(row['query_id'])} | {md_literal(row['doc_id'])} | {row['spread']} "
                f"| {md_literal(' '.join(row['grades']))} |"
            )
    lines += [
        "",
        "Alpha: 1 is perfect agreement, 0 is what chance would give; kappas use the whole declared scale "
        "as categories. `-` means the figure does not apply.",
    ]
    if report.get("ci_method"):
        lines += [
            "",
            f"In brackets: 95% intervals from {interval_words(report)}. Pairs of one query are "
            "judged alike more often than pairs of different queries, so whole queries are "
            "left out or redrawn; each stratum uses its own queries.",
        ]
    return "\n".join(lines) + "\n"


def interval_words(report: dict[str, Any]) -> str:
    """``ci_method`` in words: which queries were left out or redrawn, without the jargon."""
    method = report["ci_method"]
    replicates = method.split("B=")[1].split(",")[0] if "B=" in method else "many"
    return (
        f"leaving each of the {report['queries']} queries out in turn and recomputing every "
        "figure (Student t; alpha and kappas on log(1 - value), agreements in Wilson's form), "
        f"and redrawing the queries with replacement {replicates} times for a figure undefined "
        "with a query left out"
    )


def self_consistency_lines(report: dict[str, Any]) -> list[str]:
    if not report.get("self_consistency"):
        return []
    lines = [
        "",
        "## Self-consistency (blind repeats against the first judgment)",
        "",
        "| labeller | repeats | agreement | kappa quadratic | mean shift | agreement over time |",
        "|---|---|---|---|---|---|",
    ]
    for r in report["self_consistency"]:
        drift = " → ".join(num(x, 2) for x in r["agreement_by_time"])
        lines.append(
            f"| {md_literal(r['labeller'])} | {r['n']} | {num(r['agreement'])} | {num(r['kappa_quadratic'])} | "
            f"{signed(r['mean_shift'])} | {drift} |"
        )
    return lines


def solo_markdown(report: dict[str, Any]) -> str:
    """One labeller: only self-consistency (and runs) apply."""
    lo, hi = report["scale"]
    (name,) = report["labellers"]
    lines = [
        "# Self-consistency of one labeller",
        "",
        f"Only {md_literal(name)} has judged here ({report['units']} pairs, scale {lo}-{hi}): there is nobody to agree "
        "with, so the between-labeller figures do not apply. Blind repeats measure agreement with oneself.",
    ]
    if not report.get("self_consistency"):
        lines += [
            "",
            "No blind repeats here: judge with `--repeat 0.05` to measure agreement with oneself.",
        ]
    lines += self_consistency_lines(report)
    lines += position_lines(report)
    if report.get("runs"):
        lines += ["", "## A run judged by this labeller", ""]
        lines += run_table(report["runs"])
    if report.get("self_consistency"):  # explains the repeats table: only when there is one
        lines += [
            "",
            "Agreement: share of repeats graded as the first time; mean shift: repeat minus first "
            "(positive = more lenient later); agreement over time: in four slices of the repeats, in order.",
        ]
    return "\n".join(lines) + "\n"


def signed(x: float | None, digits: int = 2) -> str:
    """``+0.12`` / ``-0.12``; a value that rounds to zero is ``0.00``, never ``-0.00``."""
    if x is None:
        return "-"
    text = f"{x:+.{digits}f}"
    return text[1:] if float(text) == 0 else text


def plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def p_text(p: float | None) -> str:
    text = p_value_text(p, 3)
    return f"p {text}" if text == "-" or text.startswith("<") else f"p = {text}"


def position_lines(report: dict[str, Any]) -> list[str]:
    """Grade by shown position and by time into a sitting, per labeller, with the trend tests."""
    bias = report.get("position_bias")
    if not bias:
        return []
    lines: list[str] = []
    for part, heading, unit, what in (
        ("position", "shown at", "positions", "## Position bias: grade by the position shown"),
        ("time", "into sitting", "minutes", "## Grade by time into a sitting"),
    ):
        lines += [
            "",
            what,
            "",
            f"| labeller | {heading} | judgments | mean grade | relevant rate | vs query mean |",
            "|---|---|---|---|---|---|",
        ]
        for r in bias:
            for b in r[f"by_{part}"]:
                if not b["n"]:
                    continue  # JSON keeps every band; a table of dashes helps nobody
                lines.append(
                    f"| {md_literal(r['labeller'])} | {b['band']} | {b['n']} | {num(b['mean_grade'], 2)} "
                    f"| {num(b['relevant_rate'], 2)} | {signed(b['vs_query'])} |"
                )
        lines.append("")
        for r in bias:
            t = r[f"{part}_trend"]
            sittings = f", {plural(r['sittings'], 'sitting', 'sittings')}" if part == "time" else ""
            within = f"within {plural(t['queries'], 'query', 'queries')}"
            if t.get("too_few"):
                lines.append(
                    f"- {md_literal(r['labeller'])}: too few judgments for a trend "
                    f"({plural(t['judgments'], 'judgment', 'judgments')} {within}; at least "
                    f"{t['min_judgments']} needed){sittings}"
                )
                continue
            if t.get("too_short"):
                lines.append(
                    f"- {md_literal(r['labeller'])}: sittings too short for a trend (the "
                    f"judgments {within} span {t['span']:.1f} minutes into a sitting; at least "
                    f"{t['min_span']:g} needed){sittings}"
                )
                continue
            lines.append(
                f"- {md_literal(r['labeller'])}: grade {signed(t['grade_per_10'])} per 10 {unit} "
                f"({p_text(t['grade_p_value'])}), relevant rate {signed(t['relevant_per_10'])} "
                f"per 10 {unit} ({p_text(t['relevant_p_value'])}); {within}{sittings}"
            )
    first = bias[0]
    lines += [
        "",
        f"Relevant: grade >= {first['relevant_from']}. Vs query mean: grade minus the labeller's "
        "mean grade in the same query. Each labeller sees a query's documents in a random order, "
        "so within a query early and late documents are alike: a trend is the labeller's (fatigue, "
        "anchoring), not the documents'. The trends and p-values compare positions only within a "
        "query (Mantel's test, the normal approximation to reshuffling the shown order within each "
        f"query), and need at least {first['position_trend'].get('min_judgments', 30)} judgments "
        "in queries judged twice or more; a time trend also needs them to span "
        f"{first['time_trend'].get('min_span') or MIN_TREND_MINUTES:g} minutes into a sitting. "
        f"A sitting ends after {first['gap_minutes']:g} idle minutes.",
    ]
    return lines


def pending_note(runs: list[dict[str, Any]]) -> list[str]:
    """Why the consensus row is scored on fewer documents, when it is."""
    pending = next((r for r in runs if "pending" in r), None)
    if pending is None or not pending["pending"]:
        return []
    n = pending["pending"]
    retrieved = ", ".join(
        f"{md_literal(r['run'])} {r['pending_retrieved']}" for r in runs if "pending" in r
    )
    return [
        "",
        f"Consensus: {n} pair{'s' * (n != 1)} pending adjudication, not counted as relevant or as not "
        f"relevant (taken out of the run before scoring; retrieved: {retrieved}). "
        f"Decide {'them' if n != 1 else 'it'} with `goldset adjudicate`.",
    ]


def pending_mark(row: dict[str, Any]) -> str:
    return f" ({row['pending']} pending)" if row.get("pending") else ""


def run_table(runs: list[dict[str, Any]]) -> list[str]:
    measures = list(dict.fromkeys(m for r in runs for m in r["scores"]))
    out = [
        "| run | judged by | " + " | ".join(measures) + " |",
        "|---|---|" + "---|" * len(measures),
    ]
    for r in runs:
        out.append(
            f"| {md_literal(r['run'])} | {md_literal(r['qrels'])}{pending_mark(r)} | "
            + " | ".join(num(r["scores"].get(m)) for m in measures)
            + " |"
        )
    return out
