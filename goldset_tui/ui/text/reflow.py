"""Undo the hard wrapping of a document, so the screen can wrap it to its own width.

Documents from docstrings, man pages, mail and most text corpora are wrapped by hand near 72 or 79
columns: shown as written, a 160-column terminal leaves half its width empty, and an 80-column one
breaks every other line in two. :func:`reflow` joins the lines of a paragraph that were broken only
because they reached the margin, and keeps every break that means something.

The test for "broken at the margin" is the one a typist's line breaking leaves behind: the line was
full, i.e. the next line's first word would not have fitted on it within the document's wrap width
(the longest ordinary line of the document, when that is a plausible margin, 40 to 100 columns,
less an eighth of it: editors and people wrap a little early). A
short line followed by another (an address, a list of fields, a poem) was broken on purpose and is
kept. Never joined either: indented lines (code, literal blocks) except the continuation of a list
item, fenced code (```), list items, headings and their underlines, tables, doctest prompts, field
lists and a line ending in ``::``. The text itself is never changed, only line breaks become
spaces; a document with no recognisable margin comes back unchanged.

One exception to "indented lines as written": a single word left alone on the last line of an
indented prose paragraph (a parameter's description under its name, ``    directory.``) joins the
full line above it. Kept, it was a one-word orphan line on every screen; code is never touched
(the line above must be prose: four words or more, no brackets, ``=`` or ``<>``, not ending in
``:``, and full at the margin).
"""

from __future__ import annotations

import re

# A wrap width outside this range is not a typed margin (a few short lines, or unwrapped prose).
MIN_MARGIN = 40
MAX_MARGIN = 100
# A line counts as full when the next word would have come within 1/SLACK of the margin.
SLACK = 8

_LIST_ITEM = re.compile(r"^(\s*)(?:[-*+\u2022]|\d{1,4}[.)]|#\.|\(?[a-zA-Z\d]{1,3}\))\s+(?=\S)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_RULE = re.compile(r"^\s*([=\-~^\"'`#*+<>:._])\1{2,}\s*$")  # reST underlines, Markdown rules
_FIELD = re.compile(r"^:[^:`\s][^:`]*:(\s|$)")  # ":param x: ..." (not a role like :mod:`x`)
_STRUCTURE = re.compile(r"^\s*(>>>|\.\.\.|\.\. |\||\+-|#{1,6}\s|>)")


def margin(lines: list[str]) -> int | None:
    """The document's wrap width: its longest unindented line, if that is a plausible margin."""
    lengths = [len(line.rstrip()) for line in lines if line[:1].strip()]
    fitting = [n for n in lengths if n <= MAX_MARGIN]
    if len(fitting) < 2:
        return None
    width = max(fitting)
    return width if width >= MIN_MARGIN else None


def _starts_structure(line: str) -> bool:
    return bool(
        _LIST_ITEM.match(line)
        or _RULE.match(line)
        or _FIELD.match(line)
        or _STRUCTURE.match(line)
        or _FENCE.match(line)
    )


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def reflow(text: str) -> str:
    """``text`` with hard-wrapped paragraphs joined into one line each (see the module doc)."""
    if "\n" not in text:
        return text
    lines = text.split("\n")
    width = margin(lines)
    if width is None:
        return text
    out: list[str] = []
    previous = ""  # the previous line as written (out[-1] may already hold several joined)
    item_indent: int | None = None  # where the text of the current list item starts
    fenced = False
    for line in lines:
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and out and _joins(previous, line, width, item_indent):
            out[-1] = out[-1].rstrip() + " " + line.strip()
            previous = line
            continue
        item = _LIST_ITEM.match(line)
        if item:
            item_indent = item.end()
        elif line.strip() and item_indent is not None and _indent(line) < item_indent:
            item_indent = None  # the list ended
        out.append(line)
        previous = line
    return "\n".join(out)


_CODE_SIGNS = re.compile(r"[()\[\]{}=<>]")


def _orphan(previous: str, line: str, width: int) -> bool:
    """``line`` is one word that only a full prose line above pushed onto a line of its own."""
    words = line.split()
    if len(words) != 1:
        return False
    text = previous.strip()
    if len(text.split()) < 4 or _CODE_SIGNS.search(text) or text.endswith(":"):
        return False
    written = len(previous.rstrip())
    return written <= width and written + 1 + len(words[0]) > width - width // SLACK


def _joins(previous: str, line: str, width: int, item_indent: int | None) -> bool:
    """Was the break between ``previous`` and ``line`` made only because ``previous`` was full?"""
    if not previous.strip() or not line.strip() or "\t" in previous + line:
        return False
    if previous.rstrip().endswith("::") or _RULE.match(previous) or _STRUCTURE.match(previous):
        return False
    if _starts_structure(line):
        return False
    indent, previous_indent = _indent(line), _indent(previous)
    in_item = item_indent is not None and indent == item_indent
    if indent and not in_item:
        # Code or a literal block: as written; but not a one-word orphan ending indented prose.
        return indent == previous_indent and _orphan(previous, line, width)
    continues_item = item_indent is not None and previous_indent == item_indent
    if previous_indent and not (_LIST_ITEM.match(previous) or continues_item):
        return False
    written = len(previous.rstrip())
    next_word = len(line.split(None, 1)[0])
    # Some slack: people and editors wrap a little early (fill-column 70 in a 72-column text).
    return written <= width and written + 1 + next_word > width - width // SLACK
