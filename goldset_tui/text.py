"""Make untrusted text safe to show literally.

Queries, documents, titles and notes come from data. A terminal must never interpret them: no
escape sequence may reach the terminal and no markup may be parsed. The core only replaces control
characters with visible placeholders; the UI then wraps the result in ``rich.text.Text`` (which
never parses markup) instead of passing strings to anything that would.

Invisible format characters (Unicode category Cf: zero-width space and joiners, word joiner, BOM,
soft hyphen, bidi controls, tag characters...) are shown as ``<U+200B>``: unshown, ``q\u200b2`` and
``q2`` read alike, in ids, paths and messages. One exception, for text shown to be read
(``reading=True``: a document's body, a query's words): a zero-width joiner or non-joiner (U+200D,
U+200C) between two non-ASCII characters is kept, since that is its ordinary use (emoji sequences
such as a family, Persian and Indic words); between ASCII characters, or anywhere in an id, it is
escaped like the rest. Tag characters are always escaped: they can spell hidden text.
"""

from __future__ import annotations

import re

# C0 controls except tab/newline, DEL, and the C1 block (0x80-0x9f: CSI 0x9b is a one-byte ESC[).
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")
# Every format character (category Cf, Unicode 15.1; tests/unit/core/test_visible_format_chars.py
# checks the list against unicodedata). Bidi overrides/isolates among them can reorder what follows
# on screen (the "Trojan Source" trick); the others are invisible. Listed rather than computed:
# scanning every code point at import would cost ~0.2 s of start-up.
_FORMAT = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f]"
)
# A joiner kept in reading text: between two non-ASCII characters that are not spaces or formats.
_JOINED = re.compile(
    r"(?<=[^\x00-\x7f\s\u200b-\u200f])[\u200c\u200d](?=[^\x00-\x7f\s\u200b-\u200f])"
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


def _escape_format(s: str, reading: bool) -> str:
    if not reading:
        return _FORMAT.sub(_escape, s)
    kept = {m.start() for m in _JOINED.finditer(s)}
    return _FORMAT.sub(lambda m: m.group(0) if m.start() in kept else _escape(m), s)


def visible(text: object, *, keep_newlines: bool = True, reading: bool = False) -> str:
    """``text`` with every control and format character replaced by a visible placeholder.

    Tabs become spaces; newlines are kept unless ``keep_newlines`` is false (then shown as ␤).
    ``reading`` keeps joiners between non-ASCII characters (see the module's docstring): for
    document and query text, never for ids.
    """
    s = "" if text is None else str(text)
    s = s.replace("\r\n", "\n").replace("\t", "    ")
    if not keep_newlines:
        s = s.replace("\n", "\u2424")
    s = _CONTROLS.sub(_placeholder, s)
    return _escape_format(s, reading)
