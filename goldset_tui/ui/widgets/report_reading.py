"""The top k view's reading pane and notes, as ``rich.text.Text`` built from data.

The highlighted document's title and text with the query's terms marked (the judging screen's
``highlighted``), one page at a time (a page is what the pane holds; ``]`` and ``[`` turn it);
every grade of it with whose it is and a ``≠`` when labellers disagree; and the query's relevant
documents no system put in its top k, each with every system's rank or "not retrieved". Every
string from a file goes through ``safe.literal`` (``highlighted`` does too).
"""

from __future__ import annotations

from rich.text import Text

from goldset_tui.report.reading import disagree, rank_words
from goldset_tui.ui.safe import literal
from goldset_tui.ui.widgets.judge_parts import highlighted

DISAGREE = "≠"
TIED = "="


def page_bounds(text: str, page: int, size: int) -> tuple[int, int, int]:
    """(start, end, pages) of page ``page`` (clamped) of ``text`` in pages of about ``size``
    characters, each ending at a space when one is near, so no word is cut across pages."""
    size = max(200, size)
    starts = [0]
    while starts[-1] + size < len(text):
        at = starts[-1] + size
        space = text.rfind(" ", starts[-1] + size // 2, at)
        starts.append(space + 1 if space > 0 else at)
    page = max(0, min(page, len(starts) - 1))
    end = starts[page + 1] if page + 1 < len(starts) else len(text)
    return starts[page], end, len(starts)


def reading_text(
    doc: tuple[str, str] | None, query: str, *, page: int, size: int
) -> tuple[Text, int]:
    """(the pane's text, the page shown) for document ``doc`` = (title, text)."""
    if doc is None:
        return Text("No text for this document (give --corpus, or review a store).", "dim"), 0
    title, body = doc
    out = Text()
    if title:
        head = highlighted(title, query)
        head.stylize("bold")
        out.append_text(head)
        out.append("\n")
    start, end, pages = page_bounds(body, page, size)
    out.append_text(highlighted(body[start:end], query, limit=max(1, end - start)))
    if pages > 1:
        page = max(0, min(page, pages - 1))
        out.append(
            f"\n[page {page + 1} of {pages}: characters {start + 1:,}-{end:,} of {len(body):,};"
            " ] next page, [ previous]",
            style="italic dim",
        )
    return out, page


def grades_text(grades: list[tuple], in_force: int | None) -> Text:
    """``alice 1 · bob 0 ≠ labellers disagree`` (or ``unjudged``), with the grade in force."""
    out = Text()
    if in_force is None and disagree(grades):
        # The consensus leaves it out until someone decides: adjudicating is what it needs.
        out.append("undecided (counted as not relevant; adjudicate it)", style="bold yellow")
    elif in_force is None:
        out.append("unjudged (counted as not relevant)", style="bold yellow")
    else:
        out.append(f"grade in force {in_force}", style="bold")
    for who, grade in grades:
        out.append(" · ")
        out.append_text(literal(str(who), keep_newlines=False))
        out.append(f" {grade}")
    if disagree(grades):
        out.append(f" {DISAGREE} labellers disagree", style="bold magenta")
        out.append(" (a: the disagreement)", style="dim")
    return out


def outside_text(rows: list[tuple[str, int, dict]], k: int) -> Text:
    """The relevant documents outside every top k, each with every system's rank."""
    out = Text()
    if not rows:
        return out
    out.append(f"relevant, outside every top {k}:", style="bold")
    for doc, grade, where in rows:
        out.append("\n  ")
        out.append_text(literal(doc, keep_newlines=False))
        out.append(f" [{grade}] ")
        ranks = " · ".join(f"{s} {rank_words(r)}" for s, r in where.items())
        out.append_text(literal(ranks, keep_newlines=False))
    return out
