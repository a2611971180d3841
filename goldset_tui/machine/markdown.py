"""The ``machine`` part of ``goldset agreement`` as Markdown: one table per machine judge, then its
leniency per stratum. Reads only the dict :func:`goldset_tui.machine.agreement.machine_report`
builds; names are user text, so they go through the same escaping as the rest (goldset_tui.markdown_text)."""

from __future__ import annotations

from typing import Any

from goldset_tui.markdown_text import md_literal


def num(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def ci(interval: list[float] | None) -> str:
    return "" if interval is None else f" [{interval[0]:.3f}, {interval[1]:.3f}]"


def machine_markdown(machines: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    for entry in machines:
        name = md_literal(entry["labeller"])
        lines += [
            "",
            f"## Machine judge {name}",
            "",
            "Leniency is the mean grade of the machine minus the other's, on the pairs both graded"
            " (positive: the machine grades higher).",
            "",
            "| against | n | agreement | kappa (quadratic) | alpha (ordinal) | leniency |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for row in entry["against"]:
            lines.append(
                f"| {md_literal(row['b'])} | {row['n']} | {num(row['agreement'])}{ci(row['agreement_ci95'])}"
                f" | {num(row['kappa_quadratic'])}{ci(row['kappa_quadratic_ci95'])}"
                f" | {num(row['alpha_ordinal'])}{ci(row['alpha_ordinal_ci95'])}"
                f" | {num(row['leniency']['mean_difference'], 2)}"
                f"{ci(row['leniency']['mean_difference_ci95'])} |"
            )
        strata = [(row["b"], s) for row in entry["against"] for s in row["strata"]]
        if strata:
            lines += [
                "",
                f"### {name} by stratum",
                "",
                # queries: an interval redrawing two or three queries is no measure of precision
                "| against | stratum | n | queries | agreement | kappa (quadratic) | leniency |",
                "|---|---|---:|---:|---:|---:|---:|",
            ]
            for other, s in strata:
                lines.append(
                    f"| {md_literal(other)} | {md_literal(s['stratum'])} | {s['n']} | {s['queries']}"
                    f" | {num(s['agreement'])}"
                    f" | {num(s['kappa_quadratic'])} | {num(s['mean_difference'], 2)}"
                    f"{ci(s['mean_difference_ci95'])} |"
                )
    return "\n".join(lines) + "\n"


def ranking_markdown(ranking: dict[str, Any]) -> str:
    """``system_ranking``: one row per pair of label sets, then its flips."""
    lines = [
        "",
        f"## Do the labels rank the systems the same way? ({md_literal(ranking['measure'])})",
        "",
        "tau_AP takes the ordering under a as the truth; a flip is significant under a at p < 0.05"
        " (paired randomization test).",
        "",
        "| a | b | systems | Kendall tau | tau_AP | flips (significant under a) |",
        "|---|---|---:|---:|---:|---|",
    ]
    for pair in ranking["pairs"]:
        flips = ", ".join(
            f"{md_literal(f['x'])}/{md_literal(f['y'])}{' *' if f['significant_a'] else ''}"
            for f in pair["flips"]
        )
        note = f" ({pair['note']})" if pair.get("note") else ""
        lines.append(
            f"| {md_literal(pair['a'])} | {md_literal(pair['b'])} | {pair['n_systems']} |"
            f" {num(pair['kendall_tau'])} | {num(pair['tau_ap'])} | {flips or '-'}{note} |"
        )
    return "\n".join(lines) + "\n"
