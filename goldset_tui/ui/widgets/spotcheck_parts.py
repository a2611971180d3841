"""What the spot-check screen draws, as Rich renderables built from the core's numbers.

Every piece of data (queries, stratum names) goes through ``literal`` so that nothing in a log can
reach the terminal as markup or control sequences.
"""

from __future__ import annotations

from rich.console import Group, JustifyMethod
from rich.table import Table
from rich.text import Text

from goldset_tui.sampling.spotcheck import Agreement, SpotCheckSession
from goldset_tui.sampling.verdict import INSIDE, OUTSIDE, verdict_text, verdicts
from goldset_tui.ui.safe import literal

DIGITS = "123456789"
LETTERS = "abcdefghijklmnoprtvwxz"  # no q, s, u, y: those keys already mean something here
PICK_KEYS = DIGITS + LETTERS


def pick_key(index: int) -> str:
    return PICK_KEYS[index] if index < len(PICK_KEYS) else ""


DEFAULT_KEYS = {"agree": "y", "skip": "s", "undo": "u"}


def query_panel(session: SpotCheckSession) -> Text:
    item = session.current()
    total = session.items.height
    done = len(session.answered())
    out = Text()
    if item is None:
        out.append(f"All {total} queries answered. ", style="bold")
        out.append("u takes back the last answer; q quits.")
        return out
    out.append(f"Query {done + 1} of {total}", style="bold")
    out.append("   the classifier filed it as ", style="dim")
    out.append_text(literal(item["stratum"], style="bold reverse", keep_newlines=False))
    out.append("\n")
    out.append_text(literal(item.get("spelling") or item["query"], keep_newlines=False))
    return out


def choices_line(
    session: SpotCheckSession, keys: dict[str, str] | None = None, picks: list[str] | None = None
) -> Text:
    """The answer keys as they are mapped now (``keys``: agree/skip/undo; ``picks``: per stratum)."""
    keys = {**DEFAULT_KEYS, **(keys or {})}
    out = Text()
    out.append(keys["agree"], style="bold")
    out.append(" agree   ")
    for i, stratum in enumerate(session.strata):
        key = picks[i] if picks and i < len(picks) else pick_key(i)
        if not key:
            break
        out.append(key, style="bold")
        out.append(" ")
        out.append_text(literal(stratum, keep_newlines=False))
        out.append("   ")
    out.append(keys["skip"], style="bold")
    out.append(" skip   ")
    out.append(keys["undo"], style="bold")
    out.append(" undo")
    return out


def agreement_line(result: Agreement) -> Text:
    out = Text()
    ci = result.ci95
    if not result.n or ci is None:
        out.append("Agreement: no checks yet", style="bold")
    else:
        lo, hi = ci
        out.append(f"Agreement {result.agree} of {result.n}", style="bold")
        out.append(f"  {result.agree / result.n:.1%}  (95% Wilson-cc {lo:.1%} to {hi:.1%})")
    if result.skipped:
        out.append(f"  skipped {result.skipped}", style="dim")
    return out


def confusion_table(result: Agreement, strata: list[str], picks: list[str] | None = None) -> Table:
    table = Table(box=None, padding=(0, 1), show_edge=False)

    def label(i: int) -> str:
        return picks[i] if picks and i < len(picks) else pick_key(i) or "?"

    table.add_column(Text("filed as"), no_wrap=True)
    for i in range(len(strata)):
        table.add_column(Text(label(i)), justify="right")
    for i, s in enumerate(strata):
        row = result.confusion.get(s, {})
        cells = [
            Text(
                str(row.get(t, 0)) if row.get(t, 0) else ".",
                style="bold" if i == j and row.get(t) else "",
            )
            for j, t in enumerate(strata)
        ]
        table.add_row(Text(f"{label(i)} ").append_text(literal(s, keep_newlines=False)), *cells)
    return table


def strata_table(result: Agreement, sizes: dict[str, int] | None, rate: float) -> Table:
    table = Table(box=None, padding=(0, 1), show_edge=False)
    # Narrow headers so the table fits 80 columns: checked, agreed, precision and its 95% Wilson
    # interval with continuity correction, planned size in the golden set, expected misfiled queries there (from this
    # stratum's own misfile rate), the 95% sampling band, and the verdict.
    columns: list[tuple[str, JustifyMethod]] = [
        ("stratum", "left"),
        ("chk", "right"),
        ("agr", "right"),
        ("prec", "right"),
        ("95%", "right"),
        ("set n", "right"),
        ("~wrong", "right"),
        ("band", "right"),
        ("noise?", "left"),
    ]
    for name, justify in columns:
        table.add_column(Text(name), justify=justify, no_wrap=True)
    by_stratum = {v.stratum: v for v in verdicts(result, sizes, rate)}
    for row in result.per_stratum:
        v = by_stratum.get(row.stratum)
        precision = f"{row.precision:.0%}" if row.precision is not None else "-"
        ci = f"{row.ci95[0] * 100:.0f}-{row.ci95[1] * 100:.0f}" if row.ci95 else "-"
        misfiled = v.misfiled if v else None
        status = v.status if v else ""
        shown = {INSIDE: "inside", OUTSIDE: "OUTSIDE"}.get(status, "too few" if v else "")
        table.add_row(
            literal(row.stratum, keep_newlines=False),
            Text(str(row.n)),
            Text(str(row.agree)),
            Text(precision),
            Text(ci),
            Text(str(sizes.get(row.stratum, "-")) if sizes else "-"),
            Text(f"~{misfiled:.1f}" if misfiled is not None else "-"),
            Text(f"+-{v.band * 100:.0f}" if v else "-"),
            Text(shown, style="bold" if status == OUTSIDE else ""),
        )
    return table


def stats_panel(
    session: SpotCheckSession,
    sizes: dict[str, int] | None,
    rate: float,
    picks: list[str] | None = None,
) -> Group:
    result = session.agreement()
    return Group(
        agreement_line(result),
        Text(""),
        strata_table(result, sizes, rate),
        Text(""),
        literal(verdict_text(result, sizes, rate)),  # names strata from the data
        Text(""),
        Text("Confusion: rows as filed, columns as corrected (by key)", style="bold"),
        confusion_table(result, session.strata, picks),
    )
