"""The decision block as short plain lines, one section a list, for `goldset route`'s text
output and the report screen's decision view. Each line stands alone (a narrow terminal wraps
it, nothing is cut). Means, gaps and shares to 3 decimals, queries to 1. Names from the data
(systems, strata) are raw: the screen shows them literally."""

from __future__ import annotations

import math
from typing import Any

from goldset_tui.decisions.block import DecisionBlock

Section = tuple[str, list[str]]

LABELS = {
    "system": "",
    "fused": "fused",
    "routed": "router never wrong",
    "routed_with_errors": "with the router's errors",
    "oracle": "a ceiling",
}


def num(x: Any, signed: bool = False) -> str:
    if not isinstance(x, (int, float)) or not math.isfinite(x):
        return "-"
    x = round(x, 3) + 0.0  # no "-0.000" for a rounding error below zero
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def count(x: float) -> str:
    return f"{x:+.1f}"


def ci(pair: Any) -> str:
    if not pair or any(not isinstance(v, (int, float)) or not math.isfinite(v) for v in pair):
        return "[-]"
    return f"[{pair[0]:.3f}, {pair[1]:.3f}]"


def _name(option: dict[str, Any]) -> str:
    label = LABELS[option["kind"]]
    return f"{option['name']} ({label})" if label else option["name"]


def overall_lines(block: DecisionBlock) -> list[str]:
    lines = []
    for o in block.options:
        total = o["overall"]
        line = f"{_name(o)}: {num(total['weighted_mean'])} {ci(total['weighted_ci95'])}"
        vs = o.get("vs_baseline")
        if vs is None:
            line += " · the baseline"
        else:
            line += (
                f" · {num(vs['points'], True)} {ci(vs['ci95'])} against {block.baseline};"
                f" per {block.per} searches gains {vs['gained_per_n']:.1f},"
                f" loses {vs['lost_per_n']:.1f}, net {count(vs['net_per_n'])}"
            )
        lines.append(line)
    return lines


def stratum_lines(block: DecisionBlock) -> list[str]:
    lines = []
    for i, stratum in enumerate(block.strata):
        cells = []
        for o in block.options:
            row = o["strata"][i]
            text = f"{o['name']} {num(row['mean'])}"
            if row.get("system") and o["kind"] == "routed":
                text += f" ({row['system']})"
            if "route_mean" in row:
                text += f", its route {num(row['route_mean'])} {ci(row['route_ci95'])}"
            cells.append(text)
        n = block.options[0]["strata"][i]["n"]
        share = block.shares.get(stratum, 0.0)
        lines.append(f"{stratum} (share {share:.3f}, {n} queries): " + " · ".join(cells))
    return lines


def queries_lines(block: DecisionBlock) -> list[str]:
    """Per option against the baseline, per stratum: queries of the golden set and searches per
    ``per`` (points of different denominators, made comparable)."""
    lines = []
    for o in block.options:
        vs = o.get("vs_baseline")
        if vs is None:
            continue
        parts = [
            f"{r['stratum']} {count(r['set_queries'])} of {row['n']}"
            f" ({count(r['per_n'])} per {block.per})"
            for r, row in zip(vs["strata"], o["strata"], strict=True)
            if abs(r["points"]) > 1e-12
        ]
        lines.append(
            f"{o['name']} against {block.baseline}: " + ("; ".join(parts) or "no stratum moves")
        )
    return lines


def router_lines(block: DecisionBlock) -> list[str]:
    routes = ", ".join(f"{s} → {y}" for s, y in block.routes.items())
    lines = [f"routes: {routes}"]
    for p in block.precision:
        if p.source == "assumed 1":
            continue
        where = f"{p.agree} of {p.checked} checked" if p.checked else p.source
        route = block.misrouting.route_means.get(p.stratum)
        perfect = next(
            r["mean"] for r in block.option("routed")["strata"] if r["stratum"] == p.stratum
        )
        lines.append(
            f"{p.stratum}: precision {p.precision:.3f} ({where}); its route takes "
            f"{block.misrouting.misfiled[p.stratum]:.4f} of the traffic from other strata "
            f"({p.destinations_from}); realised {num(route.mean if route else None)} "
            f"{ci(route.ci if route else None)} against {num(perfect)} with no error"
        )
    lost = sum(f["headline_points_lost"] for f in block.misrouting.flows)
    if not block.misrouting.flows:
        lines.append("no misfiled traffic")
    else:
        # A misfiled query can land on a system better at its stratum than its own route's.
        verb = "cost" if lost >= 0 else "gain"
        lines.append(
            f"the router's errors {verb} {abs(lost) * block.per:.2f} searches per {block.per} "
            f"({abs(lost):.4f} of the headline)"
        )
    return lines


def sensitivity_lines(block: DecisionBlock) -> list[str]:
    lines = []
    for pair in block.sensitivity:
        tie = pair["gap"] == 0.0
        lines.append(
            f"{pair['a']} - {pair['b']}: headline gap {num(pair['gap'], True)} {ci(pair['ci95'])}"
            + (": a tie, which moving any stratum with a gap of its own decides" if tie else "")
        )
        for r in pair["strata"]:
            if r["reversing_share"] is None:
                tail = "no share of it reverses the gap"
            elif tie:
                tail = "more of it favours " + (pair["a"] if r["gap"] > 0 else pair["b"])
            else:
                tail = f"the gap reverses past share {r['reversing_share']:.3f} (a move of {r['move']:+.3f})"
            lines.append(
                f"  {r['stratum']} (share {r['share']:.3f}, gap {num(r['gap'], True)}): {tail}"
            )
    return lines


def traffic_now_lines(block: DecisionBlock) -> list[str]:
    now = block.traffic_now
    if not now:
        return []
    lines = []
    for pair in now["pairs"]:
        verdict = " · reversed" if pair["reversed"] else ""
        lines.append(
            f"{pair['a']} - {pair['b']}: {num(pair['gap'], True)} now {num(pair['gap_now'], True)}"
            f" {ci(pair['ci95_now'])} (shift {num(pair['shift'], True)}){verdict}"
        )
        lines += [
            f"  {r['stratum']} {r['share']:.3f} → {r['share_now']:.3f}, gap "
            f"{num(r['gap'], True)}: {num(r['contribution'], True)}"
            for r in pair["strata"]
        ]
    if now["strata_without_share"]:
        lines.append("no share in the other log: " + ", ".join(now["strata_without_share"]))
    if now["strata_without_queries"]:
        lines.append(
            "in the other log but not in the golden set: "
            + ", ".join(now["strata_without_queries"])
        )
    return lines


def decision_sections(block: DecisionBlock) -> list[Section]:
    out: list[Section] = [
        (f"Decisions · {block.metric} · what it estimates", [block.estimand]),
        ("Overall (traffic-weighted)", overall_lines(block)),
        ("Per stratum", stratum_lines(block)),
        (f"In queries: golden set, and per {block.per} searches", queries_lines(block)),
        ("The router", router_lines(block)),
        ("Traffic that moves: the share that reverses each gap", sensitivity_lines(block)),
    ]
    if block.traffic_now:
        out.append(("Under the other log's shares (--traffic-now)", traffic_now_lines(block)))
    if block.notes:
        out.append(("Notes", block.notes))
    return out


def decision_text(block: DecisionBlock) -> str:
    return "\n\n".join("\n".join([title, *lines]) for title, lines in decision_sections(block))
