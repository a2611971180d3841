"""Renderables for untrusted text: always ``rich.text.Text``, never markup strings.

Use ``literal(x)`` wherever data reaches a widget (``Static(literal(q))``, table cells, titles).
Passing a plain ``str`` to ``Static``/``Label`` parses Textual markup, so ``[@click=app.quit]``
inside a document would become a live link: never do that with data.
"""

from __future__ import annotations

from rich.text import Text

from goldset_tui.text import visible


def literal(text: object, *, style: str = "", keep_newlines: bool = True) -> Text:
    return Text(visible(text, keep_newlines=keep_newlines), style=style, no_wrap=False)
