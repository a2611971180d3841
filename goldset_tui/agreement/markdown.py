"""The agreement report as Markdown, for people (``goldset agreement --format md``)."""

from __future__ import annotations

import polars as pl


def num(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def cell(text: object) -> str:
    # Data inside a table row: no pipes or newlines that would break it.
    return str(text).replace("|", "\\|").replace("\n", " ")


def to_markdown(report: dict, disagreements: pl.DataFrame | None = None, *, top: int = 20) -> str:
    lo, hi = report["scale"]
    lines = [
        "# Agreement between labellers",
        "",
        f"{len(report['labellers'])} labellers ({', '.join(map(cell, report['labellers']))}), "
        f"{report['units']} units (query-document pairs), scale {lo}-{hi}.",
        "",
        "## Over all labellers",
        "",
        "| measure | value |",
        "|---|---|",
    ]
    alpha = report["alpha"]
    ci = alpha["ordinal_ci95"]
    lines += [
        f"| Krippendorff's alpha, nominal | {num(alpha['nominal'])} |",
        f"| Krippendorff's alpha, ordinal | {num(alpha['ordinal'])}"
        + (f" (95% CI {num(ci[0])} to {num(ci[1])}, bootstrap over units)" if ci else "")
        + " |",
        f"| Krippendorff's alpha, interval | {num(alpha['interval'])} |",
        f"| Fleiss' kappa | {num(report['fleiss_kappa'])}"
        + ("" if report["fleiss_kappa"] is not None else " (units have unequal numbers of ratings)")
        + " |",
        "",
        "## Pairs of labellers",
        "",
        "| a | b | units | agreement | kappa | kappa linear | kappa quadratic |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in report["pairs"]:
        lines.append(
            f"| {cell(p['a'])} | {cell(p['b'])} | {p['n']} | {num(p['agreement'])} | {num(p['kappa'])} | "
            f"{num(p['kappa_linear'])} | {num(p['kappa_quadratic'])} |"
        )
    for p in report["pairs"]:
        grades = list(range(lo, hi + 1))
        lines += ["", f"Confusion, {cell(p['a'])} (rows) x {cell(p['b'])} (columns):", ""]
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
        lines.append(f"| {b['threshold']} | {num(b['alpha'])} | {num(b['agreement'])} |")
    if report["strata"]:
        lines += [
            "",
            "## Per stratum",
            "",
            "| stratum | units rated twice or more | alpha ordinal |",
            "|---|---|---|",
        ]
        for s in report["strata"]:
            lines.append(f"| {cell(s['stratum'])} | {s['n']} | {num(s['alpha_ordinal'])} |")
    lines += self_consistency_lines(report)
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
                f"| {cell(row['query_id'])} | {cell(row['doc_id'])} | {row['spread']}"
                f" | {cell(' '.join(row['grades']))} |"
            )
    lines += [
        "",
        "Alpha: 1 is perfect agreement, 0 is what chance would give; kappas use the whole declared scale "
        "as categories. `-` means the figure does not apply.",
    ]
    return "\n".join(lines) + "\n"


def self_consistency_lines(report: dict) -> list[str]:
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
            f"| {cell(r['labeller'])} | {r['n']} | {num(r['agreement'])} | {num(r['kappa_quadratic'])} | "
            f"{r['mean_shift']:+.2f} | {drift} |"
        )
    return lines


def solo_markdown(report: dict) -> str:
    """One labeller: only self-consistency (and runs) apply."""
    lo, hi = report["scale"]
    (name,) = report["labellers"]
    lines = [
        "# Self-consistency of one labeller",
        "",
        f"Only {cell(name)} has judged here ({report['units']} pairs, scale {lo}-{hi}): there is nobody to agree "
        "with, so the between-labeller figures do not apply. Blind repeats measure agreement with oneself.",
    ]
    lines += self_consistency_lines(report)
    if report.get("runs"):
        lines += ["", "## A run judged by this labeller", ""]
        lines += run_table(report["runs"])
    lines += [
        "",
        "Agreement: share of repeats graded as the first time; mean shift: repeat minus first "
        "(positive = more lenient later); agreement over time: in four slices of the repeats, in order.",
    ]
    return "\n".join(lines) + "\n"


def pending_note(runs: list[dict]) -> list[str]:
    """Why the consensus row is scored on fewer documents, when it is."""
    pending = next((r for r in runs if "pending" in r), None)
    if pending is None or not pending["pending"]:
        return []
    n = pending["pending"]
    retrieved = ", ".join(
        f"{cell(r['run'])} {r['pending_retrieved']}" for r in runs if "pending" in r
    )
    return [
        "",
        f"Consensus: {n} pair{'s' * (n != 1)} pending adjudication, not counted as relevant or as not "
        f"relevant (taken out of the run before scoring; retrieved: {retrieved}). "
        "Decide them with `goldset adjudicate`.",
    ]


def pending_mark(row: dict) -> str:
    return f" ({row['pending']} pending)" if row.get("pending") else ""


def run_table(runs: list[dict]) -> list[str]:
    measures = list(dict.fromkeys(m for r in runs for m in r["scores"]))
    out = [
        "| run | judged by | " + " | ".join(measures) + " |",
        "|---|---|" + "---|" * len(measures),
    ]
    for r in runs:
        out.append(
            f"| {cell(r['run'])} | {cell(r['qrels'])}{pending_mark(r)} | "
            + " | ".join(num(r["scores"].get(m)) for m in measures)
            + " |"
        )
    return out
