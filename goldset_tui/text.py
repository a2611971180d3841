"""Make untrusted text safe to show literally.

Queries, documents, titles and notes come from data. A terminal must never interpret them: no
escape sequence may reach the terminal and no markup may be parsed. The core only replaces control
characters with visible placeholders; the UI then wraps the result in ``rich.text.Text`` (which
never parses markup) instead of passing strings to anything that would.

Characters that show as nothing are shown as ``<U+200B>``: unshown, ``q\u200b2`` and ``q2`` read
alike, in ids, paths and messages, and an id made of them alone reads as empty. They are the
format characters (Unicode category Cf: zero-width space and joiners, word joiner, BOM, soft
hyphen, bidi controls, tag characters...) and the rest of Unicode's default-ignorable code points
(the Hangul fillers U+3164, U+FFA0, U+115F, U+1160; the combining grapheme joiner U+034F;
variation selectors; the unassigned rest of the tag block), plus U+FFFC (an object that is not
there) and the line and paragraph separators U+2028/U+2029. Outside text shown to be read, the
braille blank U+2800 is escaped too: in an id it is a blank that is not a space.

Text shown to be read (``reading=True``: a document's body, a query's words) keeps these where
they have their ordinary use: a zero-width joiner or non-joiner (U+200D, U+200C) or the combining
grapheme joiner between two non-ASCII characters (emoji sequences such as a family, Persian and
Indic words); one variation selector right after a non-ASCII character (emoji and CJK variants:
U+2764 U+FE0F) or in a keycap (``1`` U+FE0F U+20E3); a Mongolian variation selector after a
Mongolian letter; the Hangul choseong/jungseong fillers inside an old-Hangul jamo syllable. Between
ASCII characters, or anywhere in an id, they are escaped like the rest. Tag characters are always
escaped: they can spell hidden text.
"""

from __future__ import annotations

import re

# C0 controls except tab/newline, DEL, and the C1 block (0x80-0x9f: CSI 0x9b is a one-byte ESC[).
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")
# Every format character (category Cf, Unicode 15.1) and every default-ignorable code point
# (DerivedCoreProperties.txt); tests/unit/core/test_visible_format_chars.py checks the list
# against unicodedata and the `regex` package's property tables. Bidi overrides/isolates among them
# can reorder what follows on screen (the "Trojan Source" trick); the others are invisible.
# Listed rather than computed: scanning every code point at import would cost ~0.2 s of start-up.
_VARIATION_SET = "\ufe00-\ufe0f\U000e0100-\U000e01ef"
_HIDDEN_SET = (
    "\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5"
    "\u180b-\u180f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f"
    "\ufeff\uffa0\ufff0-\ufffc\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
_HIDDEN = re.compile(f"[{_HIDDEN_SET}]")
# Escaped outside reading text only: blank, yet not a space (a braille text's word gap).
_BLANK_IN_IDS = re.compile(f"[{_HIDDEN_SET}\u2800]")
# A non-ASCII character that shows: not a space, not hidden. Before a joiner, a variation
# selector counts as part of the character it follows (U+1F3F3 U+FE0F U+200D U+1F308, a flag).
_SHOWN = f"[^\\x00-\\x7f\\s{_HIDDEN_SET}]"
# What reading text keeps, each where it is ordinarily used (see the module's docstring).
_KEPT_IN_READING = re.compile(
    f"(?:(?<={_SHOWN})|(?<={_SHOWN}[{_VARIATION_SET}]))[\u200c\u200d\u034f](?={_SHOWN})"
    f"|(?<={_SHOWN})[{_VARIATION_SET}]"
    "|(?<=[0-9#*])\ufe0f(?=\u20e3)"
    "|(?<=[\u1820-\u18aa])[\u180b-\u180d\u180f]"
    "|\u115f(?=[\u1160-\u11a7\ud7b0-\ud7c6])"
    "|(?<=[\u1100-\u115f\ua960-\ua97c])\u1160"
)


def _placeholder(match: re.Match[str]) -> str:
    ch = match.group(0)
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ .. ␟, e.g. ESC -> ␛
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"<U+{code:04X}>"


def _escape(match: re.Match[str]) -> str:
    return f"<U+{ord(match.group(0)):04X}>"


def _escape_hidden(s: str, reading: bool) -> str:
    if not reading:
        return _BLANK_IN_IDS.sub(_escape, s)
    # Each hidden character is checked where it stands (the lookbehinds see the text before it),
    # so text without any costs one scan: a megabyte of prose is not searched six ways.
    return _HIDDEN.sub(
        lambda m: m.group(0) if _KEPT_IN_READING.match(s, m.start()) else _escape(m), s
    )


def visible(text: object, *, keep_newlines: bool = True, reading: bool = False) -> str:
    """``text`` with every control and invisible character replaced by a visible placeholder.

    Tabs become spaces; newlines are kept unless ``keep_newlines`` is false (then shown as ␤).
    ``reading`` keeps joiners and variation selectors where they belong (see the module's
    docstring): for document and query text, never for ids.
    """
    s = "" if text is None else str(text)
    s = s.replace("\r\n", "\n").replace("\t", "    ")
    if not keep_newlines:
        s = s.replace("\n", "\u2424")
    s = _CONTROLS.sub(_placeholder, s)
    return _escape_hidden(s, reading)


def for_terminal(text: str, stream: object) -> str:
    """``text`` as it goes to ``stream``: made ``visible`` when the stream is a terminal, where an
    escape inside an id or a stratum name would be obeyed (a title set, the screen cleared); left
    byte for byte when it goes to a file or a pipe, where it is data for another program."""
    isatty = getattr(stream, "isatty", None)
    return visible(text) if callable(isatty) and isatty() else text
