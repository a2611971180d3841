"""Data in Markdown, shown literally: the one escaping function every Markdown writer uses.

Strata, system names, labeller names, query and document ids come from files. Put in a Markdown
report as they are, ``*bold*``, ``_x_``, ``<b>``, backticks, ``[a](b)``, ``&amp;`` or a leading
``#`` would be rendered as emphasis, HTML, code, links, entities or headings on GitHub (CommonMark
with GFM tables). :func:`md_literal` backslash-escapes every character that could start markup, so
the data renders as the text it is; control characters are shown as placeholders first (the
Markdown is also read in terminals, where an ESC must not arrive) and newlines become ``␤`` so a
value never breaks a table row or a list item.

Guarantee (tested by rendering with markdown-it-py, a CommonMark parser): for any string, the text
CommonMark renders from ``md_literal(s)`` in a table cell or a list item is ``visible(s)`` with
leading and trailing whitespace trimmed (a table cell trims them anyway; a leading run of spaces
would turn a list item into code).
"""

from __future__ import annotations

import re

from goldset_tui.text import visible

# Everywhere: what can open emphasis, code, links, images, HTML, autolinks, entities, strike-through
# (GFM), a table cell boundary, or a hard line break.
_ALWAYS = set("\\`*[]<>&|~!")
# "_" only starts emphasis at a word boundary: escaping it inside snake_case would only clutter the
# raw Markdown people read in terminals (CommonMark: intraword "_" is never a delimiter).
_UNDERSCORE = "_"
# At the start of a value (a list item, or any line a reader pastes): headings, list markers, block
# quotes, setext underlines, thematic breaks, ordered-list numbers.
# Each only where CommonMark reads it so: a list marker or a heading's hashes need a space or the
# end after them ("2026.1" and "#5" are text: escaping them only clutters what people read), a
# setext underline or a thematic break is the whole line; ">" is always escaped.
_LEADING = re.compile(r"^(#{1,6}(?=\s|$)|[+\-](?=\s|$)|\d{1,9}[.)](?=\s|$)|>|=+$|-+$)")


def md_literal(text: object) -> str:
    """``text`` as Markdown that renders exactly as its visible characters, on one line."""
    s = visible(text, keep_newlines=False).strip()
    out = []
    for i, ch in enumerate(s):
        if ch in _ALWAYS:
            out.append("\\" + ch)
        elif ch == _UNDERSCORE and not (
            0 < i < len(s) - 1 and s[i - 1].isalnum() and s[i + 1].isalnum()
        ):
            out.append("\\_")
        else:
            out.append(ch)
    escaped = "".join(out)
    # A leading marker: escape its last character ("1\." or "\#"), which a backslash can escape.
    return _LEADING.sub(lambda m: m.group(1)[:-1] + "\\" + m.group(1)[-1], escaped)


# After md_literal: an escaped code span whose inside needed no escaping ("\`goldset sample\`").
_ESCAPED_CODE = re.compile(r"\\`([^`\\]+)\\`")


def md_prose(text: object) -> str:
    """Our own sentences (what a headline estimates), which may name a command in backticks: as
    :func:`md_literal`, except that a backtick pair around text needing no escape stays a code
    span, so the reader sees `goldset sample` rather than \\`goldset sample\\`. Never for data:
    a file's id or name goes through md_literal, where a backtick is always literal."""
    return _ESCAPED_CODE.sub(r"`\1`", md_literal(text))
