"""Small marks on the judging screen that say where a pair comes from, without giving a grade
away: ``+new`` on a candidate the pool's last extension added (so a labeller judging an extended
pool sees which pairs are new among the old unjudged ones), and ``shared`` on a query of the
planned overlap (judged by everyone on the team, so it feeds agreement: worth the same care).

The marks are computed once by ``goldset judge`` (``app/judge_marks.py``) and set on the
screen; the screen only asks these functions to add them to its lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text

NEW_MARK = "+new "
SHARED_MARK = "  \u21c4 shared"


@dataclass(frozen=True)
class Marks:
    new_pairs: frozenset[tuple[str, str]] = field(default_factory=frozenset)
    shared_queries: frozenset[str] = field(default_factory=frozenset)
    team: int = 0  # how many labellers share the shared queries (said in the mark)


NO_MARKS = Marks()


def mark_query(line: Text, marks: Marks | None, query_id: str) -> Text:
    """The query line with ``⇄ shared (3 judge it)`` after its first line, on a shared query."""
    if marks is None or query_id not in marks.shared_queries:
        return line
    mark = SHARED_MARK + (f" ({marks.team} judge it)" if marks.team else "")
    cut = line.plain.find("\n")
    if cut < 0:
        return Text.assemble(line, (mark, "bold cyan"))
    head, tail = line.divide([cut])
    return Text.assemble(head, (mark, "bold cyan"), tail)


def mark_candidate(line: Text, marks: Marks | None, query_id: str, doc_id: str) -> Text:
    """The candidate line with ``+new`` after its position, on a pair the extension added."""
    if marks is None or (query_id, doc_id) not in marks.new_pairs:
        return line
    cut = line.plain.find(" ") + 1  # after "#7/30 "
    head, tail = line.divide([cut]) if cut > 0 else (line, Text())
    return Text.assemble(head, (NEW_MARK, "bold green"), tail)
