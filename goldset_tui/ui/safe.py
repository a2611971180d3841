"""Renderables for untrusted text: always ``rich.text.Text``, never markup strings.

Use ``literal(x)`` wherever data reaches a widget (``Static(literal(q))``, table cells, titles).
Passing a plain ``str`` to ``Static``/``Label`` parses Textual markup, so ``[@click=app.quit]``
inside a document would become a live link: never do that with data.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text

from goldset_tui.text import visible


def literal(
    text: object, *, style: str = "", keep_newlines: bool = True, reading: bool = False
) -> Text:
    """``reading=True`` for a document's or a query's words (joiners between non-ASCII letters
    kept, see ``text.visible``); never for ids, paths or names."""
    shown = visible(text, keep_newlines=keep_newlines, reading=reading)
    return Text(shown, style=style, no_wrap=False)


def literal_sections(sections: Iterable[tuple[str, Iterable[str]]]) -> Text:
    """Titled sections of data lines as one ``Text``, as the scrolling summary screens show them:
    each title bold with its lines under it, a blank line between sections; every title and
    line literal and kept to one line (the widget wraps it to the width)."""
    text = Text()
    for i, (title, lines) in enumerate(sections):
        if i:
            text.append("\n\n")
        text.append_text(literal(title, style="bold", keep_newlines=False))
        for line in lines:
            text.append("\n")
            text.append_text(literal(line, keep_newlines=False))
    return text
