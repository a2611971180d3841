"""The report in Markdown, for people: the table, headlines, closure, overlap, fusion, the judged
share and the paired comparisons. Data (strata, systems, ids) is shown with control characters
made visible and pipes escaped, since the Markdown is read in terminals."""

from __future__ import annotations

from goldset_tui.eval.headline import PER_SEARCH
from goldset_tui.eval.intervals import METHOD_TEXT
from goldset_tui.eval.overlap import stratum_overlap
from goldset_tui.eval.strata import SMALL_STRATUM
from goldset_tui.markdown_text import md_literal, md_prose
from goldset_tui.pvalue import p_value_text
from goldset_tui.report.decisions_md import decisions_markdown
from goldset_tui.report.format import (
    cell_text,
    decisions_json,
    dropped_rows,
    fmt_fixed,
    fmt_num,
    fused_note,
)
from goldset_tui.report.model import UNJUDGED_WARNING, Report
from goldset_tui.report.words import (
    TESTS_DISAGREE,
    ci_disagrees_with_p,
    fusion_sentence,
    rescue_sentence,
)


def to_markdown(report: Report) -> str:
    names = report.all_systems
    interval = f"{METHOD_TEXT[report.method]} (`{report.method}`)"
    lines = [
        f"# Report: {report.metric} over {report.n} queries",
        "",
        f"95% intervals: {interval}. Rows marked † have under {SMALL_STRATUM} queries: read them as counts "
        "of failures to go and read, not as rates to compare.",
        "",
    ]
    if report.origin_line is not None:
        lines += [f"**{md_literal(report.origin_line)}**", ""]
    if report.strata_changed is not None:
        lines += [f"**Strata changed:** {md_literal(report.strata_changed['note'])}.", ""]
    if report.warnings:
        lines += ["## Warnings", ""] + [f"- {md_literal(w)}" for w in report.warnings] + [""]
    lines += [
        "## By stratum",
        "",
        "| stratum | n | " + " | ".join(md_literal(s) for s in names) + " |",
        "|---|---:|" + "---:|" * len(names),
    ]
    cells = {(r["stratum"], r["system"]): r for r in report.table.iter_rows(named=True)}
    for stratum in report.strata:
        row = [cells.get((stratum, s)) for s in names]
        first = next(r for r in row if r)
        mark = " †" if first["small"] else ""
        texts = [
            cell_text(r["hits"], r["n"], r["mean"], r["ci_lo"], r["ci_hi"], r["small"])
            if r
            else "-"
            for r in row
        ]
        lines.append(f"| {md_literal(stratum)}{mark} | {first['n']} | " + " | ".join(texts) + " |")
    over = {r["system"]: r for r in report.overall.iter_rows(named=True)}
    texts = [
        cell_text(
            over[s]["hits"],
            over[s]["n"],
            over[s]["mean"],
            over[s]["ci_lo"],
            over[s]["ci_hi"],
            False,
        )
        for s in names
    ]
    lines.append(f"| **all** | {report.n} | " + " | ".join(texts) + " |")
    lines += _headline(report, {s: over[s]["mean"] for s in names})
    lines += [
        "",
        "## Closure",
        "",
        f"The table {'closes' if report.closes else 'DOES NOT close'}.",
        "",
        "| check | expected | actual | residual | ok |",
        "|---|---:|---:|---:|---|",
    ]
    for c in report.closure:
        lines.append(
            f"| {md_literal(c.name)} | {fmt_num(c.expected, 4)} | {fmt_num(c.actual, 4)}"
            f" | {fmt_num(c.residual, 4)} | {'yes' if c.ok else 'NO'} |"
        )
    dropped = dropped_rows(report)
    if dropped:
        lines += [
            "",
            f"Left out of the table ({len(dropped)}): golden-set queries (strata file) without a "
            "score, and judged queries in no stratum (stratum -).",
            "",
            "| query | stratum | why |",
            "|---|---|---|",
        ]
        lines += [
            f"| {md_literal(d['query_id'])} | {md_literal(d['stratum'] or '-')}"
            f" | {md_literal(d['why'])} |"
            for d in dropped
        ]
    if report.overlap:
        lines += [
            "",
            "## Failure-set overlap",
            "",
            "A miss is a query scored 0. The oracle takes the better of the two systems on every query.",
            "",
            "| a | b | misses a | misses b | both miss | either misses | oracle |",
            "|---|---|---:|---:|---:|---:|---:|",
        ]
        for o in report.overlap:
            lines.append(
                f"| {md_literal(o['a'])} | {md_literal(o['b'])} | {o['miss_a']} | {o['miss_b']}"
                f" | {o['both_miss']} | {o['either_miss']} | {o['oracle']:.3f} |"
            )
        if report.strata_frame is not None and len(report.systems) >= 2:
            a, b = report.systems[0], report.systems[1]
            per = stratum_overlap(report.scores, report.strata_frame, a, b)
            lines += [
                "",
                f"Shared misses of {md_literal(a)} and {md_literal(b)} by stratum. "
                + md_literal(rescue_sentence(report, a, b))
                + " *At most* is the bound the two miss counts give alone (the smaller one).",
                "",
                "| stratum | n | misses a | misses b | both miss | at most |",
                "|---|---:|---:|---:|---:|---:|",
            ]
            for r in per.iter_rows(named=True):
                lines.append(
                    f"| {md_literal(r['stratum'])} | {r['n']} | {r['miss_a']} | {r['miss_b']}"
                    f" | {r['both_miss']} | {r['both_miss_bound']} |"
                )
    sentence = fusion_sentence(report)
    if sentence is not None:
        lines += [
            "",
            "## Fusion",
            "",
            md_literal(sentence),
            "",
            "Headroom collected = (fused - best single) / (oracle of the single runs - best single),"
            " where the oracle takes, per query, the best of the single runs.",
        ]
    lines += _unjudged(report)
    lines += _paired(report)
    lines += _by_stratum(report)
    lines += decisions_markdown(decisions_json(report))
    return "\n".join(lines) + "\n"


def _ci(ci: list[object] | tuple[object, ...] | None, digits: int = 3) -> str:
    # No interval (None in the JSON, nan before it) is one "-", like any other missing cell.
    if ci is None or any(not isinstance(x, (int, float)) or x != x for x in ci):
        return "-"
    lo, hi = (float(x) for x in ci)  # type: ignore[arg-type]
    return f"[{fmt_fixed(lo, digits)}, {fmt_fixed(hi, digits)}]"


def _headline(report: Report, means: dict[str, float]) -> list[str]:
    names = {
        "unweighted": "Unweighted",
        "weighted": "Traffic-weighted",
        "design_weighted": "Design-weighted (Hajek)",
    }
    lines = ["", "## Headline", "", "What each headline estimates:", ""]
    lines += [f"- *{names[k]}*: {md_prose(v)}." for k, v in report.estimands.items()]
    method = _headline_method(report)
    lines += ["", method, ""] if method else [""]
    return lines + _headline_table(report, means)


def _headline_method(report: Report) -> str:
    ratio = (
        "its 95% interval is Wilson's form at the estimate with the linearised variance of the "
        "ratio (the design effect of unequal weights included), floored per cell by the variance "
        "the design effect of the weights implies, t with n - cells degrees of freedom, inside "
        "the measure's range"
    )
    if report.weighted_kind == PER_SEARCH:
        text = (
            "*Traffic-weighted*: within each stratum every query weighted by its count / its "
            "inclusion probability (a Hajek ratio; the stratum's head and tail apart, weighted by "
            "their known shares of its traffic), the strata combined by traffic share; " + ratio
        )
    elif report.weighted_kind is not None:
        text = (
            "*Traffic-weighted*: the sum over strata of traffic share x stratum mean, with a "
            "stratified 95% interval "
            + (
                "(share^2 x s^2 / n summed over strata, t with Welch-Satterthwaite degrees of "
                "freedom"
                if report.method == "student-t"
                else "(Wilson's formula at an effective number of queries from the strata's "
                "variances, t with Welch-Satterthwaite degrees of freedom; inside the measure's "
                "range"
            )
            + ("; finite-population corrected" if report.fpc else "")
            + ")"
        )
    else:
        text = ""
    if report.design is not None:
        text += (". " if text else "") + (
            "*Design-weighted*: each query weighted by 1 / its inclusion probability from the "
            "strata file (a Hajek ratio over the whole set); "
            + ("its interval likewise" if report.weighted_kind == PER_SEARCH else ratio)
        )
    return (text + ".") if text else ""


def _headline_table(report: Report, means: dict[str, float]) -> list[str]:
    lines: list[str] = []
    head = "| system | unweighted | traffic-weighted | 95% CI | difference |"
    rule = "|---|---:|---:|---|---:|"
    if report.design is not None:
        head += " design-weighted (Hajek) | 95% CI |"
        rule += "---:|---|"
    lines += [head, rule]
    for s, mean in means.items():
        w = report.weighted.get(s) if report.weighted is not None else None
        ci = report.weighted_ci.get(s) if report.weighted_ci is not None else None
        diff = "-" if w is None else f"{w - mean:+.3f}"
        row = f"| {md_literal(s)} | {mean:.3f} | {fmt_fixed(w)} | {_ci(ci)} | {diff} |"
        if report.design is not None:
            dci = report.design_ci.get(s) if report.design_ci is not None else None
            row += f" {fmt_fixed(report.design.get(s))} | {_ci(dci)} |"
        lines.append(row)
    if report.weighted is None:
        lines += ["", "No traffic file: the weighted headline needs `--traffic stratum,share`."]
    return lines


def _unjudged(report: Report) -> list[str]:
    if not report.judged:
        return []
    lines = [
        "",
        f"## Judged fraction of each run's top {report.k}",
        "",
        "Unjudged documents count as not relevant, so holes pull a number down. *If relevant*: the "
        "mean had every unjudged document of the run's own top k been judged relevant (at the "
        "lowest relevant grade); the gap is how far judging the holes could move it (for nDCG "
        "and recall the ideal grows too, so it is an estimate, not a strict ceiling).",
        "",
        "| system | judged | unjudged | unjudged docs | as scored | if relevant | could move by |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for s, v in report.judged.items():
        flag = " ⚠" if v == v and 1 - v > UNJUDGED_WARNING else ""
        b = report.unjudged_bounds.get(s)
        if b is None:
            rest = "- | - | - | -"
        else:
            low, high = float(b["unjudged_as_nonrelevant"]), float(b["unjudged_as_relevant"])
            rest = f"{b['unjudged']} | {low:.3f} | {high:.3f} | {high - low:+.3f}"
        lines.append(f"| {md_literal(s)} | {fmt_fixed(v)} | {fmt_fixed(1 - v)}{flag} | {rest} |")
    return lines


def _paired(report: Report) -> list[str]:
    if not report.paired:
        return []
    lines = [
        "",
        "## Paired comparisons",
        "",
        "Per query, a - b: 95% score interval of the per-query differences, randomization p, and "
        "Holm's adjustment "
        "over every pair (*p Holm*). *Weighted*: the traffic-weighted difference, paired within "
        "each stratum, with its stratified interval.",
    ]
    if any(ci_disagrees_with_p(p) for p in report.paired):
        lines += ["", TESTS_DISAGREE]
    note = fused_note(report)
    if note:
        lines += ["", f"Note: {md_literal(note)}."]
    lines += [
        "",
        "| a | b | mean diff (a - b) | 95% CI | p | p Holm | weighted diff | weighted 95% CI "
        "| wins | losses | ties |",
        "|---|---|---:|---|---:|---:|---:|---|---:|---:|---:|",
    ]
    for p in report.paired:
        w = p.get("weighted_mean_diff")
        lines.append(
            f"| {md_literal(p['a'])} | {md_literal(p['b'])} | {p['mean_diff']:+.3f}"
            f" | {_ci(p['ci95'])}{' ‡' if ci_disagrees_with_p(p) else ''}"
            f" | {p_value_text(p['p_value'])} | {p_value_text(p.get('p_adjusted'))}"
            f" | {'-' if w is None or w != w else f'{w:+.3f}'} | {_ci(p.get('weighted_ci95'))}"
            f" | {p['wins']} | {p['losses']} | {p['ties']} |"
        )
    return lines


def _by_stratum(report: Report) -> list[str]:
    if not report.by_stratum:
        return []
    test = "exact McNemar on the discordant queries" if report.binary else "paired randomization"
    lines = [
        "",
        "## Paired comparisons by stratum",
        "",
        f"Per stratum, {test}; *p Holm* adjusts over the pairs compared on that stratum. "
        "*Cannot tell apart*: p Holm >= 0.05, the stratum does not separate the two systems. "
        "*All strata*: Holm over every stratum and pair at once, the guard against one of many "
        "slices passing by chance.",
        "",
        "| stratum | a | b | n | mean diff | only a / only b | p | p Holm | all strata | reading |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in report.by_stratum:
        disc = "-" if r["only_a"] is None else f"{r['only_a']} / {r['only_b']}"
        adjusted = r["p_adjusted"]
        reading = (
            "cannot tell apart"
            if isinstance(adjusted, float) and adjusted >= 0.05
            else ("a ahead" if float(r["mean_diff"]) > 0 else "b ahead")
        )
        lines.append(
            f"| {md_literal(r['stratum'])} | {md_literal(r['a'])} | {md_literal(r['b'])} | {r['n']}"
            f" | {float(r['mean_diff']):+.3f} | {disc} | {p_value_text(r['p_value'])}"
            f" | {p_value_text(adjusted)} | {p_value_text(r.get('p_holm_strata'))} | {reading} |"
        )
    return lines
