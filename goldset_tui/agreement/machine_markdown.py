"""The ``machine`` part of ``goldset agreement`` as Markdown: one table per machine judge, then its
leniency per stratum. Reads only the dict :func:`goldset_tui.agreement.machine.machine_report`
builds; names are user text, so they go through the same cell escaping as the rest."""

from __future__ import annotations

from typing import Any

from goldset_tui.agreement.markdown import cell


def num(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def ci(interval: list[float] | None) -> str:
    return "" if interval is None else f" [{interval[0]:.3f}, {interval[1]:.3f}]"


def machine_markdown(machines: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    for entry in machines:
        name = cell(entry["labeller"])
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
                f"| {cell(row['b'])} | {row['n']} | {num(row['agreement'])}{ci(row['agreement_ci95'])}"
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
                "| against | stratum | n | agreement | kappa (quadratic) | leniency |",
                "|---|---|---:|---:|---:|---:|",
            ]
            for other, s in strata:
                lines.append(
                    f"| {cell(other)} | {cell(s['stratum'])} | {s['n']} | {num(s['agreement'])}"
                    f" | {num(s['kappa_quadratic'])} | {num(s['mean_difference'], 2)}"
                    f"{ci(s['mean_difference_ci95'])} |"
                )
    return "\n".join(lines) + "\n"
