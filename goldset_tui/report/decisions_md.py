"""The decision block in the Markdown report: the same rows as the JSON's ``decisions`` (each run
alone, fused, routed with the router never wrong and with its errors, the oracle), per stratum and
overall, against the baseline in points and in searches per N. Written from the JSON dict itself,
so the two formats cannot disagree on a number (docs/report.md, "Decisions")."""

from __future__ import annotations

import math
from typing import Any

from goldset_tui.markdown_text import md_literal, md_prose

KIND_WORDS = {
    "system": "alone",
    "fused": "fused",
    "routed": "routed, router never wrong",
    "routed_with_errors": "routed, with the router's errors",
    "oracle": "oracle (a ceiling)",
}


def _num(x: Any, signed: bool = False, digits: int = 3) -> str:
    if not isinstance(x, (int, float)) or isinstance(x, bool) or not math.isfinite(x):
        return "-"
    x = round(float(x), digits) + 0.0  # no "-0.000" for a rounding error below zero
    return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"


def _ci(pair: Any) -> str:
    if not pair or any(_num(v) == "-" for v in pair):
        return "-"
    return f"[{_num(pair[0])}, {_num(pair[1])}]"


def decisions_markdown(block: dict[str, Any] | None) -> list[str]:
    """Lines of the "Decisions" section; none without a block (no traffic, or one run)."""
    if not block:
        return []
    per = block["per"]
    base = block["baseline"]
    strata = [r["stratum"] for r in block["options"][0]["strata"]] if block["options"] else []
    routes = block["routing"]["routes"]
    lines = [
        "",
        "## Decisions",
        "",
        f"Overall: {md_prose(block['estimand'])}. "
        f"Routes: {md_literal(', '.join(f'{s} → {y}' for s, y in routes.items()))}. "
        f"Against the baseline *{md_literal(base)}*, in points and in searches per {per}.",
        "",
        "| option | what | "
        + " | ".join(md_literal(s) for s in strata)
        + " | overall | 95% CI | vs baseline | 95% CI "
        + f"| gained / lost / net per {per} |",
        "|---|---|" + "---:|" * len(strata) + "---:|---|---:|---|---:|",
    ]
    for o in block["options"]:
        cells = [_num(r["mean"]) for r in o["strata"]]
        total = o["overall"]
        vs = o.get("vs_baseline")
        against = (
            "baseline | - | -"
            if vs is None
            else f"{_num(vs['points'], True)} | {_ci(vs['ci95'])} | {vs['gained_per_n']:.1f}"
            f" / {vs['lost_per_n']:.1f} / {vs['net_per_n']:+.1f}"
        )
        lines.append(
            f"| {md_literal(o['name'])} | {KIND_WORDS.get(o['kind'], o['kind'])} | "
            + " | ".join(cells)
            + f" | {_num(total['weighted_mean'])} | {_ci(total['weighted_ci95'])} | {against} |"
        )
    lines += [
        "",
        f"In queries against {md_literal(base)}, per stratum: queries of the golden set "
        f"(points x n) and, in brackets, searches per {per} (points x share x {per}).",
        "",
        "| option | " + " | ".join(md_literal(s) for s in strata) + " |",
        "|---|" + "---:|" * len(strata),
    ]
    n_of = {r["stratum"]: r["n"] for r in block["options"][0]["strata"]} if strata else {}
    for o in block["options"]:
        vs = o.get("vs_baseline")
        if vs is None:
            continue
        cells = [
            f"{r['set_queries']:+.1f} of {n_of[r['stratum']]} ({r['per_n']:+.1f})"
            for r in vs["strata"]
        ]
        lines.append(f"| {md_literal(o['name'])} | " + " | ".join(cells) + " |")
    precision = [p for p in block["precision"] if p.get("source") != "assumed 1"]
    if precision:
        lines += [""] + [
            f"- router precision for {md_literal(p['stratum'])}: {_num(p['precision'])}"
            f" (from {p['source']}; the intervals take it as known)"
            for p in precision
        ]
    if block.get("notes"):
        lines += [""] + [f"- {md_literal(n)}" for n in block["notes"]]
    return lines
