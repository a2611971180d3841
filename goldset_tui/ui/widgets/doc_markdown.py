"""A Markdown document shown rendered, and still literal: nothing in it can act.

Parsed with markdown-it-py (CommonMark; it comes with Rich and Textual, so no new dependency) and
drawn by this module, not by Rich's or Textual's Markdown widgets, which make links clickable
(OSC 8 hyperlinks, ``@click`` actions). Here: headings, emphasis, strong, inline code, code blocks,
lists, block quotes, rules and tables (GFM pipe tables, one line per row, columns aligned, the
header bold above a rule: a table used to run into one line of pipes) are styled; a link shows
its text followed by its target in angle brackets, an image shows ``[image: alt]`` and its
address (nothing is fetched), raw HTML is shown as the text it is, dimmed. Every string goes
through ``doc_blocks.piece`` (controls visible, no markup parsed).
"""

from __future__ import annotations

from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.text import Text

from goldset_tui.ui.widgets.doc_blocks import CODE, QUIET, Block, heading_style, piece

_PARSER = MarkdownIt("commonmark").enable("table")
_INLINE_STYLES = {"em_open": "italic", "strong_open": "bold"}


def markdown_blocks(source: str) -> list[Block]:
    blocks: list[Block] = []
    lists: list[_List] = []  # the open lists, outermost first
    quotes = 0
    pending_prefix = ""
    heading = 0
    tight = False
    table: list[list[Text]] | None = None  # the rows of a table being read, cells as text
    header_rows = 0

    def indent() -> int:
        return 2 * quotes + sum(len(outer.marker()) for outer in lists[:-1])

    def add(text: Text, *, prefix: str = "", gap: bool = True) -> None:
        nonlocal pending_prefix
        if pending_prefix:
            # A tight list's items follow each other; its first item still leaves a blank line.
            first = len(lists) == 1 and lists[-1].items == 1
            prefix, pending_prefix = pending_prefix, ""
            gap = first or (gap and not (tight and blocks))
        elif lists:
            prefix = " " * len(lists[-1].marker())  # the item's later blocks, under its text
        blocks.append(Block(text, indent=indent(), prefix=prefix, gap=gap))

    for token in _PARSER.parse(source):
        kind = token.type
        if kind == "table_open":
            table, header_rows = [], 0
        elif kind == "table_close" and table is not None:
            add(table_text(table, header_rows))
            table = None
        elif table is not None:
            if kind == "tr_open":
                table.append([])
            elif kind == "thead_close":
                header_rows = len(table)
            elif kind == "inline" and table:
                table[-1].append(inline(token.children or []))
            continue
        if kind == "heading_open":
            heading = int(token.tag[1:])
        elif kind == "heading_close":
            heading = 0
        elif kind == "paragraph_open":
            tight = token.hidden
        elif kind == "inline":
            style = heading_style(heading) if heading else ""
            add(inline(token.children or [], style), gap=not (tight and lists))
        elif kind in {"bullet_list_open", "ordered_list_open"}:
            start = int(token.attrs.get("start", 1) or 1) - 1 if kind == "ordered_list_open" else 0
            lists.append(_List("bullet" if kind == "bullet_list_open" else token.markup, start))
        elif kind in {"bullet_list_close", "ordered_list_close"}:
            lists.pop()
        elif kind == "list_item_open" and lists:
            lists[-1].items += 1
            pending_prefix = lists[-1].marker()
        elif kind == "blockquote_open":
            quotes += 1
        elif kind == "blockquote_close":
            quotes -= 1
        elif kind in {"fence", "code_block"}:
            code = Text()
            piece(code, token.content.rstrip("\n"), CODE)
            add(code)
        elif kind == "html_block":
            raw = Text()
            piece(raw, token.content.rstrip("\n"), QUIET)
            add(raw)
        elif kind == "hr":
            add(Text("\u2500" * 24, style=QUIET))
    return blocks


def table_text(rows: list[list[Text]], header_rows: int) -> Text:
    """A table as lines of text: one row a line, each column as wide as its widest cell, cells
    apart by " │ ", the header bold above a rule. Too wide for the screen, a row wraps (it is
    still one row, not the whole table run together)."""
    count = max((len(row) for row in rows), default=0)
    widths = [
        max((row[i].cell_len for row in rows if i < len(row)), default=0) for i in range(count)
    ]
    out = Text()
    for number, row in enumerate(rows):
        if number:
            out.append("\n")
        if number and number == header_rows:
            out.append("\u2500\u253c\u2500".join("\u2500" * w for w in widths) + "\n", style=QUIET)
        for i in range(count):
            cell = row[i] if i < len(row) else Text()
            if number < header_rows:
                cell.stylize("bold")
            if i:
                out.append(" \u2502 ", style=QUIET)
            out.append_text(cell)
            if i < count - 1:
                out.append(" " * (widths[i] - cell.cell_len))
    return out


@dataclass
class _List:
    kind: str  # "bullet", or the delimiter of an ordered list ("." or ")")
    items: int  # items so far (an ordered list's number is this, from its start)

    def marker(self) -> str:
        return "\u2022 " if self.kind == "bullet" else f"{self.items}{self.kind} "


def inline(children: list[Token], base: str = "") -> Text:
    """One paragraph's inline tokens as styled, literal text."""
    text = Text()
    styles = [base] if base else []
    links: list[str] = []
    for child in children:
        kind = child.type
        style = " ".join(styles)
        if kind == "text":
            piece(text, child.content, style)
        elif kind == "softbreak":
            text.append(" ")  # the source's line breaks: the screen wraps to its own width
        elif kind == "hardbreak":
            text.append("\n")
        elif kind == "code_inline":
            piece(text, child.content, f"{style} {CODE}".strip())
        elif kind in _INLINE_STYLES:
            styles.append(_INLINE_STYLES[kind])
        elif kind in {"em_close", "strong_close"} and styles:
            styles.pop()
        elif kind == "link_open":
            links.append(str(child.attrs.get("href", "")))
            styles.append("underline")
        elif kind == "link_close" and links:
            styles.pop()
            href = links.pop()
            if href and not text.plain.endswith(href):  # an autolink already shows its target
                piece(text, f" <{href}>", QUIET)
        elif kind == "image":
            alt = "".join(c.content for c in child.children or []) or child.content
            piece(text, f"[image: {alt}]" if alt else "[image]", QUIET)
            piece(text, f" <{child.attrs.get('src', '')}>", QUIET)
        elif kind == "html_inline":
            piece(text, child.content, QUIET)
    return text
