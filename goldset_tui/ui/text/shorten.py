"""Identifiers shortened in the middle, kept apart from each other.

Document and query ids differ at the end as often as at the start (``LA091089-0212`` and
``LA091089-0213``; ``pathlib#PurePath.with_stem`` and ``pathlib#PurePath.with_suffix``). Cut at the
end to fit a column, they all read alike. :func:`distinct_forms` gives every id of one screen a
form that fits ``width`` terminal cells, with the cut in the middle (``LA091…-0212``), and keeps
distinct ids distinct:

1. an id that fits is shown whole;
2. otherwise its form uses the whole width (the fewest characters cut), head and tail around one
   ``…``; ids whose balanced cut would collide share the nearest split that tells them apart;
3. failing that (ids alike at both ends), a window around the middle: ``…16.with_s…``;
4. failing that (ids alike everywhere a form can show, e.g. ``aaaa`` and ``aaaaa``), a counter:
   ``aaa…~2``.

Guarantee: every form fits ``width`` cells, and distinct ids get distinct forms whenever ``width``
has room for the counter (``width >= 2 + digits of the number of ids``). The caller keeps the full
id one key away: a form is for telling ids apart on a screen, not for copying.
Widths are terminal cells (East Asian wide characters count two; combining marks none).
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator

ELLIPSIS = "…"


def cell_width(text: str) -> int:
    """Terminal cells ``text`` takes: wide/full-width characters 2, combining marks 0."""
    total = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        total += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return total


def _prefix(text: str, budget: int) -> str:
    used = 0
    for i, ch in enumerate(text):
        used += cell_width(ch)
        if used > budget:
            return text[:i]
    return text


def _suffix(text: str, budget: int) -> str:
    return _prefix(text[::-1], budget)[::-1]


def _heads(width: int) -> Iterator[int]:
    """Head budgets, the balanced split first (tail one cell longer: ids often differ at the end),
    then alternately further from it."""
    budget = width - 1
    mid = budget // 2
    seen = set()
    for step in range(budget + 1):
        for head in (mid - step, mid + step):
            if 0 <= head <= budget and head not in seen:
                seen.add(head)
                yield head


def middle(text: str, width: int, head: int | None = None) -> str:
    """``text`` whole when it fits ``width`` cells, else head + ``…`` + tail in ``width`` cells
    (``head`` cells of head; by default the balanced split)."""
    if width < 1:
        raise ValueError(f"width must be at least 1, not {width}")
    if cell_width(text) <= width:
        return text
    budget = width - 1
    if head is None:
        head = budget // 2
    return _prefix(text, head) + ELLIPSIS + _suffix(text, budget - head)


def _windows(text: str, width: int) -> Iterator[str]:
    """``…`` + an inner stretch + ``…``, from the middle outwards."""
    budget = width - 2
    if budget < 1:
        return
    starts = list(range(1, len(text)))
    centre = len(text) // 2
    starts.sort(key=lambda i: abs(i - (centre - budget // 2)))
    for i in starts:
        inner = _prefix(text[i:], budget)
        if inner and i + len(inner) < len(text):
            yield ELLIPSIS + inner + ELLIPSIS


def _counted(text: str, width: int, taken: set[str]) -> str:
    n = 2
    while True:
        tag = f"{ELLIPSIS}~{n}"
        form = _prefix(text, max(0, width - cell_width(tag))) + tag
        if form not in taken or cell_width(tag) > width:
            return _prefix(form, width) if cell_width(form) > width else form
        n += 1


def distinct_forms(ids: Iterable[str], width: int) -> dict[str, str]:
    """Each id's form on a screen where every one of ``ids`` is shown in ``width`` cells."""
    if width < 1:
        raise ValueError(f"width must be at least 1, not {width}")
    unique = list(dict.fromkeys(ids))
    forms: dict[str, str] = {x: x for x in unique if cell_width(x) <= width}
    taken = set(forms.values())
    long = [x for x in unique if x not in forms]
    groups: dict[str, list[str]] = defaultdict(list)
    for x in long:
        groups[middle(x, width)].append(x)
    # Singletons first: a balanced form nothing else produces is the one to keep.
    pending: list[list[str]] = []
    for form, members in groups.items():
        if len(members) == 1 and form not in taken:
            forms[members[0]] = form
            taken.add(form)
        else:
            pending.append(members)
    for members in pending:
        for head in _heads(width):
            trial = [middle(x, width, head) for x in members]
            if len(set(trial)) == len(trial) and not taken.intersection(trial):
                forms.update(zip(members, trial, strict=True))
                taken.update(trial)
                break
        else:
            for x in members:
                window = next((w for w in _windows(x, width) if w not in taken), None)
                forms[x] = window if window is not None else _counted(x, width, taken)
                taken.add(forms[x])
    return {x: forms[x] for x in unique}
