"""What ``u`` can take back, read from the store: a labeller's history rebuilt into the undo stack.

The journal already holds every grade and every undo in the order they happened (``seq``), so a
session that ends (an SSH drop, a restart) loses nothing ``u`` needs: replaying the history gives
the same stack the old session had. The rules are the store's: an ``undo`` event cancels the most
recent grade of its pair not cancelled yet. Only grades given on the judging screen go on the
stack (they have ``seconds``); imported grades (no ``seconds``) are never undone by ``u``.

One ``d`` gives a whole near-duplicate group one grade; ``u`` takes the group back in one press.
The store has no column for "one key", so the group is recognised by how ``d`` writes it: the
same query, grade and time on consecutive records, with no time spent on them (``seconds`` 0; a
grade key always spends some time on its candidate). See docs/judging.md.
"""

from __future__ import annotations

import polars as pl

from goldset_tui.judging.state import UndoEntry

# A grade from the grade keys: its pair's grade before, and its place on the stack (-1: imported).
_Grade = tuple[str, int | None, int]


def undo_stack(history: pl.DataFrame) -> tuple[list[UndoEntry], int]:
    """The undo stack (oldest first) that ``history`` (one labeller's events in ``seq`` order:
    ``query_id, doc_id, grade, time, seconds, kind``) leaves, and how many ``d`` groups it has
    (the group numbers used are 1 to that)."""
    entries: list[UndoEntry | None] = []
    pairs: dict[tuple[str, str], list[_Grade]] = {}
    groups = 0
    last_group: tuple[str, int | None, str] | None = None
    rows = history.select("query_id", "doc_id", "grade", "time", "seconds", "kind").iter_rows()
    for query_id, doc_id, grade, time, seconds, kind in rows:
        stack = pairs.setdefault((query_id, doc_id), [])
        if kind == "undo":
            if stack:
                place = stack.pop()[2]
                if place >= 0:
                    entries[place] = None
            last_group = None
            continue
        if kind not in ("judge", "repeat"):
            continue  # a note: not a grade
        place = -1
        if seconds is not None:
            before = next((g for k, g, _ in reversed(stack) if k == "judge"), None)
            group = None
            if kind == "judge" and seconds == 0:
                key = (query_id, grade, time)
                if key != last_group:
                    groups += 1
                    last_group = key
                group = groups
            else:
                last_group = None
            entries.append(UndoEntry(query_id, doc_id, before, kind, group))
            place = len(entries) - 1
        else:
            last_group = None
        stack.append((kind, grade, place))
    return [e for e in entries if e is not None], groups
