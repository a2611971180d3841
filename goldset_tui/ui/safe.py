"""Renderables for untrusted text: always ``rich.text.Text``, never markup strings.

Use ``literal(x)`` wherever data reaches a widget (``Static(literal(q))``, table cells, titles).
Passing a plain ``str`` to ``Static``/``Label`` parses Textual markup, so ``[@click=app.quit]``
inside a document would become a live link: never do that with data.
"""

from __future__ import annotations

from rich.text import Text

from goldset_tui.text import visible


def literal(
    text: object, *, style: str = "", keep_newlines: bool = True, reading: bool = False
) -> Text:
    """``reading=True`` for a document's or a query's words (joiners between non-ASCII letters
    kept, see ``text.visible``); never for ids, paths or names."""
    shown = visible(text, keep_newlines=keep_newlines, reading=reading)
    return Text(shown, style=style, no_wrap=False)
