"""Make untrusted text safe to show literally.

Queries, documents, titles and notes come from data. A terminal must never interpret them: no
escape sequence may reach the terminal and no markup may be parsed. The core only replaces control
characters with visible placeholders; the UI then wraps the result in ``rich.text.Text`` (which
never parses markup) instead of passing strings to anything that would.
"""

from __future__ import annotations

import re

# C0 controls except tab/newline, DEL, and the C1 block (0x80-0x9f: CSI 0x9b is a one-byte ESC[).
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")
# Bidi overrides/isolates can reorder what follows them on screen (the "Trojan Source" trick).
_BIDI = re.compile(r"[\u202a-\u202e\u2066-\u2069]")


def _placeholder(match: re.Match[str]) -> str:
    ch = match.group(0)
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ .. ␟, e.g. ESC -> ␛
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"<U+{code:04X}>"


def visible(text: object, *, keep_newlines: bool = True) -> str:
    """``text`` with every control character replaced by a visible placeholder.

    Tabs become spaces; newlines are kept unless ``keep_newlines`` is false (then shown as ␤).
    """
    s = "" if text is None else str(text)
    s = s.replace("\r\n", "\n").replace("\t", "    ")
    if not keep_newlines:
        s = s.replace("\n", "\u2424")
    s = _CONTROLS.sub(_placeholder, s)
    return _BIDI.sub(lambda m: f"<U+{ord(m.group(0)):04X}>", s)
