"""The history as text (aligned columns) or Markdown; JSON is :meth:`History.to_json`.

Every id and name comes from data: the caller passes text through ``text.visible`` before it
reaches a terminal (the command does), and Markdown cells escape ``|``.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Sequence
from typing import Any

from goldset_tui.history.timeline import History
from goldset_tui.markdown_text import md_literal
from goldset_tui.pvalue import p_value_text
from goldset_tui.report.words import TESTS_DISAGREE_SHORT, ci_disagrees_with_p
from goldset_tui.text import visible


def _shown(name: str) -> str:
    return visible(name, keep_newlines=False)


def _num(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.3f}"


def _ci(ci: Sequence[float] | None) -> str:
    if not ci or any(math.isnan(v) for v in ci):
        return "-"
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def _signed_ci(ci: Sequence[float | None] | None) -> str:
    if not ci or any(v is None or math.isnan(v) for v in ci):
        return "-"  # one query in common: no interval
    return f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"


def disagrees(change: dict[str, Any] | None) -> bool:
    """The change's interval and p-value point different ways (marked ``‡``)."""
    if not change or change["mean_diff"] is None:
        return False
    return ci_disagrees_with_p(change)


# Under the legend when some change's interval and p-value point different ways (marked ‡): the
# text, the Markdown and the screen say it in the words of `goldset compare`'s note.
DISAGREE_LINE = "‡ " + TESTS_DISAGREE_SHORT


def change_text(change: dict[str, Any]) -> str:
    if change["mean_diff"] is None:
        return "no query in common"
    mark = (" *" if change["significant"] else "") + (" ‡" if disagrees(change) else "")
    words = moved_words(change)
    return (
        f"{change['mean_diff']:+.3f} {_signed_ci(change['ci95'])} "
        f"p {p_value_text(change['p_value'])} on {change['n']}{mark}"
        + (f" ({words})" if words else "")
    )


def moved_words(change: dict[str, Any]) -> str | None:
    """The queries' directions in words when they all went one way (or none moved): an interval
    that covers at its level must reach across 0 on a few queries, and "[-0.295, +0.210]" alone
    reads as "could be better or worse" where no query improved. A mixed change has no such
    sentence: its interval already says it."""
    up, down = change.get("improved"), change.get("worse")
    if up is None or down is None or (up and down):
        return None
    if not up and not down:
        return "no query changed"
    if not up:
        return f"no query improved; {down} got worse"
    return f"no query got worse; {up} improved"


def set_change_text(change: dict[str, Any]) -> str | None:
    moved = change.get("set_changed") or []
    return "the golden set changed here: " + ", ".join(moved) if moved else None


def _systems(history: History) -> list[str]:
    return list(dict.fromkeys(r["system"] for r in history.releases))


def rows_of(history: History, system: str) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """Each release of ``system`` with the change that led to it (None for the first)."""
    rels = [r for r in history.releases if r["system"] == system]
    changes = {c["to"]: c for c in history.changes if c["system"] == system}
    return [(r, changes.get(r["release"])) for r in rels]


def to_text(history: History, *, recurring: tuple[int, int], store: str | None = None) -> str:
    if not history.releases:
        return f"no recorded evaluation of {history.metric or 'any measure'} in this store\n"
    out = [f"history of {history.metric} (releases in the order first recorded)"]
    out.append("* the paired 95% interval of the change excludes 0")
    if any(disagrees(c) for c in history.changes):
        out.append(DISAGREE_LINE)
    for system in _systems(history):
        out += ["", f"system {system}"]
        # Padded as shown: the command turns an ESC or a bidi mark into a visible placeholder,
        # so a name's width on screen is that of its visible form.
        width = max(7, *(len(_shown(r["release"])) for r, _ in rows_of(history, system)))
        out.append(
            f"  {'release':<{width}}  {'version':<12}  {'n':>4}  {'mean':>6}  {'95% CI':<16}  "
            "change from previous release (paired)"
        )
        for rel, change in rows_of(history, system):
            out.append(
                f"  {_shown(rel['release']):<{width}}  {rel['version']:<12}  {rel['n']:>4}  "
                f"{_num(rel['mean']):>6}  {_ci(rel['ci95']):<16}  "
                f"{change_text(change) if change else ''}".rstrip()
            )
            moved = set_change_text(change) if change else None
            if moved:
                out.append(f"  {'':<{width}}  ^ {moved}")
        out += _strata_lines(history, system)
    out += ["", *_recurring_lines(history, recurring, store)]
    return "\n".join(out) + "\n"


def _strata_lines(history: History, system: str) -> list[str]:
    rels = [r for r, _ in rows_of(history, system)]
    strata = sorted({s for r in rels for s in r["strata"]})
    if len(strata) < 2:
        return []
    out = ["  per stratum (mean [95% CI], n):"]
    for stratum in strata:
        cells = []
        for r in rels:
            cell = r["strata"].get(stratum)
            cells.append(
                f"{r['release']}: {_num(cell['mean'])} {_ci(cell['ci95'])} n={cell['n']}"
                if cell
                else f"{r['release']}: -"
            )
        out.append(f"    {stratum}: " + "; ".join(cells))
    return out


def _recurring_lines(
    history: History, recurring: tuple[int, int], store: str | None = None
) -> list[str]:
    k, n = recurring
    head = f"recurring failures (scored 0 in at least {k} of a system's last {n} releases)"
    if not history.recurring:
        return [f"{head}: none"]
    lines = [f"{head}:"]
    for r in history.recurring:
        lines.append(
            f"  {r['system']}  {r['query_id']}  ({r['stratum']})  failed in "
            + ", ".join(r["failed_in"])
        )
    # The store's own path, quoted for a shell: the line is a command to paste, not a template.
    where = shlex.quote(store) if store else "DIR"
    lines.append(f"  name one: goldset regressions --store {where} --promote QUERY_ID --name NAME")
    return lines


def _md(text: str) -> str:
    # Release names, systems, strata and query ids are data: the one Markdown escaping of the
    # project (not pipes alone), so none of them renders as emphasis, a link or HTML.
    return md_literal(text)


def to_markdown(history: History, *, recurring: tuple[int, int], store: str | None = None) -> str:
    if not history.releases:
        return f"No recorded evaluation of {history.metric or 'any measure'} in this store.\n"
    out = [f"# History of {history.metric}", ""]
    out += ["\\* the paired 95% interval of the change excludes 0", ""]
    if any(disagrees(c) for c in history.changes):
        out += [DISAGREE_LINE, ""]
    for system in _systems(history):
        out += [
            f"## {_md(system)}",
            "",
            "| release | version | n | mean | 95% CI | change (paired) | golden set |",
            "|---|---|---:|---:|---|---|---|",
        ]
        for rel, change in rows_of(history, system):
            moved = ", ".join(change.get("set_changed") or []) if change else ""
            out.append(
                f"| {_md(rel['release'])} | {rel['version']} | {rel['n']} | {_num(rel['mean'])} "
                f"| {_ci(rel['ci95'])} | {change_text(change) if change else ''} "
                f"| {_md(moved)} |"
            )
        out.append("")
    recur = _recurring_lines(history, recurring, store)
    out += [f"## {recur[0]}", "", *(_md(line) for line in recur[1:])]
    return "\n".join(out) + "\n"
