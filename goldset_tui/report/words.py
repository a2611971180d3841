"""The report's sentences, said the same way in the Markdown and on the review screen.

Each function takes a :class:`Report` (or one of its rows) and returns plain text: no Markdown,
no markup. Data in it (system and stratum names) is raw: the Markdown escapes it with
``md_literal``, the screen shows it with ``literal``. Every figure in a sentence is one of the
JSON's, at the same rounding the screen uses (3 decimals; a share as a whole percentage).
"""

from __future__ import annotations

from typing import Any

from goldset_tui.eval.overlap import rescued_misses
from goldset_tui.report.model import Report

ALPHA = 0.05

# Said under every table of paired tests where an interval and a p-value can disagree.
TESTS_DISAGREE = (
    "The interval and the p-value come from different procedures and can disagree near the "
    "edge: an interval that just excludes 0 beside p >= 0.05 (or just includes it beside "
    "p < 0.05). The interval is a score interval on the per-query differences, an approximation "
    "built to hold the true difference 95% of the time on small sets, whose width comes from "
    "every query, ties included; the p-value is a randomization (or exact McNemar) test, exact "
    "under the hypothesis of no difference, which looks only at the queries that moved and on "
    "few of them cannot go low (five queries all moving one way give p = 0.0625 at best). Read "
    "p Holm for whether the two differ and the interval for roughly how much; rows marked ‡ "
    "disagree, and are not evidence of a difference unless p Holm is under 0.05."
)

# One line for `goldset compare` when its interval and p-value point different ways.
TESTS_DISAGREE_SHORT = (
    "the interval and the p-value disagree: the interval approximates from every query, the "
    "test is exact on the queries that moved; read p for whether, the interval for how much"
)


def fused_inputs(report: Report) -> str:
    return ", ".join(report.systems)


def fusion_depth_words(report: Report) -> str:
    return (
        f"each run's top {report.fusion_depth}"
        if report.fusion_depth is not None
        else "every document each run retrieved"
    )


def fusion_sentence(report: Report) -> str | None:
    """What fusion did against the best single run and the oracle; None without a fused run.

    A negative share is never printed as a share ("collects -29%"): the sentence says the fused
    run falls below the best single run, and by how much."""
    if not report.fused or report.fused not in report.fusion:
        return None
    f = report.fusion[report.fused]
    head = (
        f"{report.fused}, reciprocal rank fusion (k = 60) of {fusion_depth_words(report)} from "
        f"{fused_inputs(report)}, scores {f['mean']:.3f}"
    )
    best, best_mean, oracle = f.get("best_single"), f.get("best_single_mean"), f.get("oracle")
    if best is None or best_mean is None or oracle is None:
        return head + "."
    against = f"the best single run is {best} ({best_mean:.3f}), the oracle {oracle:.3f}"
    share = f["headroom_collected"]
    if share is None:
        return f"{head}; {against}: no share of headroom ({report.headroom_note})."
    gap = f["mean"] - best_mean
    if share < 0:
        return (
            f"{head}, {-gap:.3f} below the best single run, {best} ({best_mean:.3f}): it "
            f"collects none of the {oracle - best_mean:.3f} of headroom the oracle "
            f"({oracle:.3f}) shows over {best}."
        )
    said = f"{head}; {against}: fusion collects {share:.0%} of the headroom"
    if share > 1:
        return said + f" ({report.headroom_note})."
    return said + "."


def rescue_sentence(report: Report, a: str, b: str) -> str:
    """What fusion did with the queries ``a`` and ``b`` both miss, counted rather than asserted.

    With two runs a merge can only promote documents one of the two lists holds; with more, the
    fused run also draws on the others, which may hold what both of these missed."""
    if not report.fused:
        return "Merging lists can only promote documents one of them retrieved."
    rescued = rescued_misses(report.scores, a, b, report.fused)
    where = f"fusing {fusion_depth_words(report)}"
    others = [s for s in report.systems if s not in (a, b)]
    if rescued == 0 and not others:
        return (
            f"The fused run ({where}) rescues none of them: it can only promote documents one of "
            "the two lists holds, and neither holds one that counts."
        )
    if rescued == 0:
        return (
            f"The fused run ({where}, also from {', '.join(others)}) rescues none of them: "
            f"neither of their lists holds a document that counts, and {', '.join(others)} "
            "supplied none either."
        )
    source = f", with documents only {', '.join(others)} retrieved" if others else ""
    return f"The fused run ({where}) rescues {rescued} of them{source}."


def ci_disagrees_with_p(p: dict[str, Any]) -> bool:
    """The interval and the test point different ways: the interval excludes 0 while
    p >= 0.05, or includes 0 while p < 0.05 (the raw p, which the interval is comparable with)."""
    lo, hi = (p.get("ci95") or [None, None])[:2]
    pv = p.get("p_value")
    if lo is None or hi is None or pv is None:
        return False
    excludes = float(lo) > 0 or float(hi) < 0
    return excludes != (float(pv) < ALPHA)


def fusion_brief(report: Report) -> str | None:
    """The fusion figures in one short line for the report screen (the sentence is on the summary
    screen and in the Markdown): the fused mean, the best single run, the oracle, and the share
    collected, or how far below the best run, or why there is no share."""
    if not report.fused or report.fused not in report.fusion:
        return None
    f = report.fusion[report.fused]
    best, best_mean, oracle = f.get("best_single"), f.get("best_single_mean"), f.get("oracle")
    line = f"fusion: {report.fused} {f['mean']:.3f}"
    if best is None or best_mean is None or oracle is None:
        return line
    line += f" · best single {best} {best_mean:.3f} · oracle {oracle:.3f} · "
    share = f["headroom_collected"]
    if share is None:
        return line + (
            "no share: no cutoff, the oracle is no ceiling"
            if oracle > best_mean
            else "no headroom to collect"
        )
    if share < 0:
        return line + f"{best_mean - f['mean']:.3f} below the best single run"
    return (
        line + f"collects {share:.0%} of the headroom" + (" (above 1: see s)" if share > 1 else "")
    )
