"""`goldset drift`'s text: shares, the reweighted headline, what flips, the plan. Names of
strata and systems come from the user's files: the caller makes them visible (``text.visible``)
before printing."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from goldset_tui.pvalue import p_value_text

if TYPE_CHECKING:
    from goldset_tui.drift.result import Drift, ZeroClicks


def _pct(x: float | None, signed: bool = False) -> str:
    if x is None or not math.isfinite(x):
        return "-"
    return f"{x * 100:+.1f}" if signed else f"{x * 100:.1f}"


def _num(x: float | None, signed: bool = False) -> str:
    if x is None or not math.isfinite(x):
        return "-"
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def drift_lines(d: Drift) -> list[str]:
    out = [f"Stratum shares: {d.old_source} (old) -> {d.new_source} (new), in % of searches"]
    out.append(
        f"  {'stratum':<18} {'old':>6} {'new':>6} {'change':>7} {'95% CI':>15} "
        f"{'p':>8} {'p Holm':>8}"
    )
    for s in d.shares:
        ci = f"[{_pct(s.ci95[0], True)}, {_pct(s.ci95[1], True)}]"
        out.append(
            f"  {s.stratum:<18} {_pct(s.old_share):>6} {_pct(s.new_share):>6} "
            f"{_pct(s.change, True):>7} {ci:>15} {p_value_text(s.p_value):>8} "
            f"{p_value_text(s.p_holm):>8}"
        )
    out.append("  (every search counted as independent, so the intervals are the narrowest")
    out.append("  possible: read a change by what it does to the headline)")
    r = d.reweighted
    if r is not None:
        out.append("")
        out.append(f"Headline ({d.measure}) under the old and the new shares")
        out.append(f"  {'system':<18} {'old':>7} {'new':>7} {'change':>7}")
        for name, h in r.systems.items():
            out.append(
                f"  {name:<18} {_num(h['old']):>7} {_num(h['new']):>7} {_num(h['change'], True):>7}"
            )
        out.append(
            f"  traffic the golden set's strata hold: {_pct(r.covered['old'])}% old, "
            f"{_pct(r.covered['new'])}% new"
        )
        old_w, new_w = ", ".join(r.winner_old) or "-", ", ".join(r.winner_new) or "-"
        if r.winner_flips:
            out.append(f"  FLIPS: the best system was {old_w}; under the new shares, {new_w}")
        else:
            out.append(f"  the best system stays {new_w}")
        for p in r.pairs:
            lo, hi = p["gap_new_ci95"]
            verdict = "FLIPS" if p["flips"] else "same sign"
            out.append(
                f"  {p['a']} - {p['b']}: {_num(p['gap_old'], True)} -> {_num(p['gap_new'], True)} "
                f"[{_num(lo, True)}, {_num(hi, True)}] ({verdict})"
            )
            parts = sorted(p["by_stratum"].items(), key=lambda kv: -abs(kv[1]))
            moved = ", ".join(f"{s} {_num(v, True)}" for s, v in parts if abs(v) >= 0.0005)
            if moved:
                out.append(f"    the move, by stratum (change of share x gap): {moved}")
    plan = d.replan
    if plan is not None:
        out.append("")
        out.append(
            f"Plan (--total {plan.total} --min-per-stratum {plan.min_per_stratum}) under each "
            "log's shares"
        )
        out.append(f"  {'stratum':<18} {'golden':>6} {'plan old':>8} {'plan new':>8}")
        for row in plan.rows:
            mark = "  *" if row["moved"] else ""
            out.append(
                f"  {row['stratum']:<18} {row['golden']:>6} {_opt(row['plan_old']):>8} "
                f"{_opt(row['plan_new']):>8}{mark}"
            )
        out.append(
            f"  weighted headline's 95% half-width (p = 0.7): {_pct(plan.half_width_old)} "
            f"points old, {_pct(plan.half_width_new)} new"
        )
        if plan.matches:
            out.append("  the golden set's sizes match the plan under the new shares")
        else:
            out.append("  * the golden set no longer matches the plan: re-plan and draw again,")
            out.append(
                f"    `goldset sample plan NEW_LABELS --total {plan.total} "
                f"--min-per-stratum {plan.min_per_stratum}`"
            )
    if d.zero_click is not None:
        out.append("")
        out.append("Zero-click share of each stratum's searches, old -> new")
        for z in d.zero_click:
            lo, hi = z["ci95"]
            out.append(
                f"  {z['stratum']:<18} {_pct(z['old']['share']):>6} {_pct(z['new']['share']):>6} "
                f"{_pct(z['change'], True):>7} [{_pct(lo, True)}, {_pct(hi, True)}] "
                f"p Holm {p_value_text(z['p_holm'])}"
            )
        if d.zero_click_recurring:
            out.append("  zero-click in both logs (searches old, new):")
            out += [
                f"    {z['zero_old']:>6} {z['zero_new']:>6}  {z['stratum']:<18} {z['query']}"
                for z in d.zero_click_recurring
            ]
    out += [f"note: {n}" for n in d.notes]
    return out


def _opt(x: int | None) -> str:
    return "-" if x is None else str(x)


def zero_click_lines(z: ZeroClicks) -> list[str]:
    """`goldset classify --clicks`: shares per stratum, recurring queries, candidate strata."""
    out = [f"Zero-click searches (no click in {z.column!r}), by stratum"]
    for s in z.shares:
        out.append(
            f"  {s.stratum:<18} {s.zero_click:>10} of {s.occurrences:>10} {_pct(s.share):>6}%"
        )
    if z.recurring.height:
        out.append("Zero-click queries that recur (most zero-click searches first)")
        for query, stratum, count, zero in z.recurring.iter_rows():
            out.append(f"  {zero:>8} of {count:>8}  {stratum:<18} {query}")
    if not z.candidates:
        out.append("No candidate stratum: no group of zero-click queries the rules fit badly")
        return out
    out.append("Candidate strata (zero-click queries the rules fit badly, grouped by shared words)")
    for c in z.candidates:
        out.append(
            f"  {c.name}: {len(c.queries)} queries, {c.occurrences} searches, {c.zero_click} "
            f"zero-click, from {', '.join(c.from_strata)}"
        )
        out += [f"    e.g. {q}" for q in c.queries[:3]]
    out.append("A rules function with the candidates in front (name each, write its mechanism):")
    out += [f"  {line}" if line else "" for line in (z.snippet or "").splitlines()]
    return out
