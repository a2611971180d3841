"""Everything the report holds beyond its table, as short plain-text lines for a screen.

The review screens show the report as `goldset report` writes it: headlines with their intervals,
fusion against the best single run and the oracle, failure overlap for every pair, the judged
share and how far the holes could move each number, and the paired tests overall and per stratum.
Each section is a title and lines; each line stands alone, so a narrow terminal wraps it and
nothing is cut. Every figure is one of ``goldset report --format json``'s, rounded as stated:
means, differences and intervals to 3 decimals, p-values to 4, shares of the top k to 3.
Data (system and stratum names) is raw text: the screen shows it literally.
"""

from __future__ import annotations

import math
from typing import Any

from goldset_tui.eval.headline import PER_QUERY, estimand_brief
from goldset_tui.eval.overlap import stratum_overlap
from goldset_tui.pvalue import p_value_text
from goldset_tui.report.format import fmt_fixed, fused_note
from goldset_tui.report.model import UNJUDGED_WARNING, Report
from goldset_tui.report.words import (
    TESTS_DISAGREE,
    ci_disagrees_with_p,
    fusion_sentence,
    rescue_sentence,
)

Section = tuple[str, list[str]]


def ci_text(ci: Any) -> str:
    # No interval (None in the JSON, nan before it: a pair compared on one query) shows as [-].
    if not ci or any(not isinstance(x, (int, float)) or math.isnan(x) for x in ci[:2]):
        return "[-]"
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def headline_lines(report: Report) -> list[str]:
    """One line per system: the mean and its interval, then the traffic-weighted mean and its
    interval (``weighted_ci95``), then the design-weighted one when there is one; then one line
    naming what each weighted headline estimates (``estimands``)."""
    lines = []
    for r in report.overall.iter_rows(named=True):
        s = r["system"]
        line = f"{s}: {fmt_fixed(r['mean'])} {ci_text([r['ci_lo'], r['ci_hi']])}"
        if report.weighted is not None and s in report.weighted:
            ci = report.weighted_ci.get(s) if report.weighted_ci is not None else None
            line += f" · traffic-weighted {fmt_fixed(report.weighted[s])} {ci_text(ci)}"
        if report.design is not None and s in report.design:
            ci = report.design_ci.get(s) if report.design_ci is not None else None
            line += f" · design-weighted {fmt_fixed(report.design[s])} {ci_text(ci)}"
        lines.append(line)
    said = []
    if report.weighted_kind is not None:
        brief = estimand_brief(report.weighted_kind, binary=report.binary)
        said.append(f"traffic-weighted: {brief}")
    if report.design is not None:
        said.append(f"design-weighted: {estimand_brief(PER_QUERY, binary=report.binary)}")
    if said:
        lines.append("Estimates " + " · ".join(said))
    return lines


def overlap_lines(report: Report) -> list[str]:
    lines = [
        f"{o['a']} / {o['b']}: misses {o['miss_a']} / {o['miss_b']} · both miss {o['both_miss']}"
        f" · either misses {o['either_miss']} · oracle {fmt_fixed(o['oracle'])}"
        for o in report.overlap
    ]
    if report.strata_frame is not None and len(report.systems) >= 2:
        a, b = report.systems[0], report.systems[1]
        lines.append(
            f"Shared misses of {a} and {b} by stratum (at most: the bound the two miss counts "
            f"give alone). {rescue_sentence(report, a, b)}"
        )
        per = stratum_overlap(report.scores, report.strata_frame, a, b)
        lines += [
            f"  {r['stratum']} ({r['n']}): misses {r['miss_a']} / {r['miss_b']} · both miss "
            f"{r['both_miss']} · at most {r['both_miss_bound']}"
            for r in per.iter_rows(named=True)
        ]
    return lines


def judged_lines(report: Report) -> list[str]:
    lines = []
    for s, v in report.judged.items():
        flag = " ⚠" if v == v and 1 - v > UNJUDGED_WARNING else ""
        line = f"{s}: judged {fmt_fixed(v)} of its top {report.k}{flag}"
        b = report.unjudged_bounds.get(s)
        if b is not None:
            low, high = float(b["unjudged_as_nonrelevant"]), float(b["unjudged_as_relevant"])
            line += (
                f" · {b['unjudged']} unjudged · as scored {low:.3f}, if they were relevant "
                f"{high:.3f} (could move by {high - low:+.3f})"
            )
            outside = b.get("queries_outside_table")
            if outside:
                # Holes of queries with no relevant grade yet: judged relevant, they would join
                # the table (report.holes).
                word = "query" if outside == 1 else "queries"
                line += f" · holes in {outside} {word} not in the table yet"
        lines.append(line)
    return lines


def paired_lines(report: Report) -> list[str]:
    if not report.paired:
        return []
    lines = []
    note = fused_note(report)
    if note:
        lines.append(f"Note: {note}.")
    for p in report.paired:
        mark = " ‡" if ci_disagrees_with_p(p) else ""
        line = (
            f"{p['a']} - {p['b']}: {p['mean_diff']:+.3f} {ci_text(p['ci95'])}{mark} · "
            f"p {p_value_text(p['p_value'])} · p Holm {p_value_text(p.get('p_adjusted'))}"
        )
        w = p.get("weighted_mean_diff")
        if w is not None and w == w:  # nan: no weighted difference to show
            line += f" · traffic-weighted {w:+.3f} {ci_text(p.get('weighted_ci95'))}"
        line += f" · {p['wins']} wins, {p['losses']} losses, {p['ties']} ties"
        lines.append(line)
    if any(ci_disagrees_with_p(p) for p in report.paired):
        lines.append("‡ " + TESTS_DISAGREE)
    return lines


def by_stratum_lines(report: Report) -> list[str]:
    lines = []
    for r in report.by_stratum:
        adjusted = r["p_adjusted"]
        reading = (
            "cannot tell apart"
            if isinstance(adjusted, float) and adjusted >= 0.05
            else ("a ahead" if float(r["mean_diff"]) > 0 else "b ahead")
        )
        disc = "" if r["only_a"] is None else f" · only a {r['only_a']}, only b {r['only_b']}"
        lines.append(
            f"{r['stratum']} · {r['a']} - {r['b']}: {float(r['mean_diff']):+.3f}{disc} · "
            f"p {p_value_text(r['p_value'])} · p Holm {p_value_text(adjusted)} · all strata "
            f"{p_value_text(r.get('p_holm_strata'))} · {reading}"
        )
    return lines


def summary_sections(report: Report) -> list[Section]:
    """The sections in the Markdown's order; a section without content is left out."""
    test = "exact McNemar" if report.binary else "paired randomization"
    sections: list[Section] = [
        (
            f"Headline: mean [95% {report.method}]"
            + (", traffic-weighted mean [95%]" if report.weighted is not None else "")
            + (", design-weighted mean [95%]" if report.design is not None else ""),
            headline_lines(report),
        ),
        ("Fusion", [s for s in [fusion_sentence(report)] if s]),
        (
            "Failure-set overlap (a miss scores 0; the oracle takes the better of the two)",
            overlap_lines(report),
        ),
        (f"Judged share of each run's top {report.k}", judged_lines(report)),
        (
            "Paired comparisons, a - b: mean difference [bootstrap 95%], randomization p, Holm",
            paired_lines(report),
        ),
        (
            f"By stratum ({test}; cannot tell apart: p Holm >= 0.05)",
            by_stratum_lines(report),
        ),
    ]
    return [(title, lines) for title, lines in sections if lines]
