"""Documents rendered from Markdown or reStructuredText, and plain ones reflowed, stay literal:
no link, image, HTML, markup or escape sequence in the data can act. Checked on the ANSI bytes a
real terminal would receive (no OSC 8 hyperlink, no escape but colours) and on the styles."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console
from rich.text import Text

from goldset_tui.ui.widgets.doc_markdown import markdown_blocks
from goldset_tui.ui.widgets.doc_rst import rst_blocks
from goldset_tui.ui.widgets.doc_text import document, next_width

OSC8 = "\x1b]8;;https://evil.example/osc\x07osc8 link\x1b]8;;\x07"
MARKUP = "[@click=app.quit]quit[/] [bold]not bold[/bold] [link=https://evil.example]x[/link]"

HOSTILE_MD = (
    f"# Heading {MARKUP}\n\n"
    "A [link](https://evil.example/steal) and [js](javascript:alert(1)) and <https://auto.example>.\n"
    "An image ![tracker](https://evil.example/pixel.png) and <img src=https://evil.example/x.png>.\n"
    f"Escapes {OSC8} and \x1b[2J and &#27;[31m and \x9b31m.\n\n"
    "<script>alert(1)</script>\n\n"
    "```\n\x1b[31mcode [red]x[/red]\n```\n"
)
HOSTILE_RST = (
    f"Heading {MARKUP}\n{'=' * 100}\n\n"
    "A `link <https://evil.example/steal>`_ and `js <javascript:alert(1)>`_.\n"
    f"Escapes {OSC8} and \x1b[2J and \x9b31m.\n\n"
    ".. image:: https://evil.example/pixel.png\n\n"
    ".. raw:: html\n\n   <script>alert(1)</script>\n\n"
    "Code::\n\n    \x1b[31mcode [red]x[/red]\n"
)
HOSTILE_PLAIN = f"{MARKUP}\n{OSC8} \x1b[2J \x9b31m <https://evil.example/steal>"
SGR = re.compile(r"\x1b\[[0-9;]*m")


def ansi(renderable: object, width: int = 100) -> str:
    console = Console(
        width=width, file=io.StringIO(), force_terminal=True, color_system="truecolor"
    )
    console.print(renderable)
    return console.file.getvalue()  # type: ignore[attr-defined]


def all_spans(renderable: object) -> list:
    console = Console(width=100, file=io.StringIO())
    return [seg.style for seg in console.render(renderable) if seg.style is not None]


@pytest.mark.parametrize(
    ("render", "source"),
    [("markdown", HOSTILE_MD), ("rst", HOSTILE_RST), ("plain", HOSTILE_PLAIN)],
)
def test_nothing_in_a_document_can_act(render: str, source: str) -> None:
    shown = document(source, "link heading", render=render)
    out = ansi(shown)
    assert "\x1b]" not in out  # no OSC at all: no hyperlink, no window title
    rest = SGR.sub("", out)
    assert "\x1b" not in rest and "\x9b" not in rest  # only colours reach the terminal
    for style in all_spans(shown):
        assert not style.link and not style.meta, style  # no link, no @click action
    # The data is all there, as text.
    assert MARKUP in rest
    assert "\u241b]8;;https://evil.example/osc\u2407osc8 link" in rest
    assert "\u241b[2J" in rest and "<U+009B>31m" in rest
    assert "https://evil.example/steal" in rest


def test_markdown_shows_links_images_and_html_as_text() -> None:
    rest = SGR.sub("", ansi(document(HOSTILE_MD, "", render="markdown"), width=200))
    assert "link <https://evil.example/steal>" in rest
    assert "[image: tracker] <https://evil.example/pixel.png>" in rest
    assert "<img src=https://evil.example/x.png>" in rest
    assert "<script>alert(1)</script>" in rest
    assert "[js](javascript:alert(1))" in rest  # not a link to CommonMark either: as written
    assert "code [red]x[/red]" in rest and "# Heading" not in rest


def test_rst_subset_titles_literal_blocks_and_inline_markup() -> None:
    rest = SGR.sub("", ansi(document(HOSTILE_RST, "", render="rst"), width=200))
    assert "=" * 20 not in rest  # the underline is the title's style, not text
    assert "link <https://evil.example/steal>" in rest
    assert ".. image:: https://evil.example/pixel.png" in rest  # directives as written
    assert "<script>alert(1)</script>" in rest
    assert "Code:\n" in rest and "code [red]x[/red]" in rest
    (block,) = rst_blocks("*em* **strong** ``lit`` :func:`json.dumps` 2*3*4 snake_case_")
    spans = [(block.text.plain[s.start : s.end], str(s.style)) for s in block.text.spans]
    assert spans == [("em", "italic"), ("strong", "bold"), ("lit", "cyan"), ("json.dumps", "cyan")]
    assert block.text.plain == "em strong lit json.dumps 2*3*4 snake_case_"


def test_rst_lists_and_titles() -> None:
    blocks = rst_blocks(
        "Title\n=====\n\n- one that\n  continues\n- two\n\n:param x: the x\n\n  quoted\n"
    )
    assert [(b.prefix, b.text.plain, b.indent) for b in blocks] == [
        ("", "Title", 0),
        ("- ", "one that continues", 0),
        ("- ", "two", 0),
        ("", "param x: the x", 0),
        ("", "quoted", 2),
    ]
    assert "bold" in str(blocks[0].text.style) or blocks[0].text.spans


def test_markdown_lists_are_numbered_and_nested() -> None:
    blocks = markdown_blocks("- a\n- b\n  1. x\n  2. y\n\nafter *em*")
    assert [(b.prefix.strip(), b.text.plain, b.indent) for b in blocks] == [
        ("\u2022", "a", 0),
        ("\u2022", "b", 0),
        ("1.", "x", 2),
        ("2.", "y", 2),
        ("", "after em", 0),
    ]


def test_query_terms_are_highlighted_in_every_mode() -> None:
    for render in ("plain", "markdown", "rst"):
        shown = document("How to *rotate* a key", "rotate key", render=render)
        styles = [str(s) for s in all_spans(shown)]
        assert any("reverse" in s for s in styles), render


def test_a_long_document_is_cut_with_a_word_about_m_in_every_mode() -> None:
    for render in ("plain", "markdown", "rst"):
        out = SGR.sub("", ansi(document("word " * 10_000, "", render=render, limit=100)))
        assert "showing the first 100 of 50,000 characters; press m for more" in out, render


def test_reading_widths_cycle() -> None:
    seen = [72]
    for _ in range(5):
        seen.append(next_width(seen[-1]))
    assert seen == [72, 88, 100, 120, 0, 72]
    assert next_width(93) == 72
    assert isinstance(document("a\nb", "", render="plain"), Text)


def test_a_markdown_table_keeps_its_rows() -> None:
    # With the CommonMark preset a pipe table was one paragraph: every row on one line.
    source = (
        "Key lifetimes:\n\n"
        "| key | rotates every |\n|---|---|\n| api | 90 days |\n| signing [key](x) | 1 year |\n\n"
        "After the table."
    )
    blocks = markdown_blocks(source)
    assert [b.text.plain for b in blocks] == [
        "Key lifetimes:",
        "key             \u2502 rotates every\n"
        + "\u2500" * 16
        + "\u253c"
        + "\u2500" * 14
        + "\napi             \u2502 90 days\nsigning key <x> \u2502 1 year",
        "After the table.",
    ]
    out = SGR.sub("", ansi(document(source, "key", render="markdown"), width=80))
    assert "api             \u2502 90 days" in out.splitlines()[4]
    assert "javascript" not in out


def test_a_table_row_with_missing_cells_stays_a_row() -> None:
    blocks = markdown_blocks("| a | b | c |\n|---|---|---|\n| 1 |\n")
    assert blocks[0].text.plain.splitlines()[-1].startswith("1 ")
