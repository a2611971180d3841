"""A reStructuredText document shown rendered: a safe subset, drawn here (no docutils at run time).

What is rendered: section titles (underlined, or over- and underlined: the line of punctuation is
dropped and the title is bold), paragraphs (reflowed to the screen), ``*emphasis*``,
``**strong**``, ````literal````, roles such as ``:func:`json.dumps``` (shown as the code they
name), ```text <url>`_`` links (the text, then the address in angle brackets: nothing is
clickable), bullet and enumerated lists, field lists (``:param x: ...``), literal blocks (after a
paragraph ending in ``::``), doctest blocks (``>>>``) and indented block quotes. Everything else
(directives, comments, tables, substitutions) is shown as written, so nothing in a document is
hidden from the labeller. Every string goes through ``doc_blocks.piece`` (controls made visible,
no markup parsed).
"""

from __future__ import annotations

import re

from rich.text import Text

from goldset_tui.ui.widgets.doc_blocks import CODE, QUIET, Block, heading_style, piece

_ADORNMENT = re.compile(r"^([=\-`:'\"~^_*+#<>.])\1{2,}\s*$")
_ITEM = re.compile(r"^(?:[-*+\u2022]|\d{1,4}[.)]|#\.|[a-zA-Z][.)]|\((?:\d{1,4}|[a-zA-Z#])\))\s+")
_EXPLICIT = re.compile(r"^\.\.(\s|$)")  # directives, comments, targets
_FIELD = re.compile(r"^:([^:`\s][^:`]*):(?:\s+|$)")
# Inline markup, in the order reST tries it; each needs a non-word character (or the edge) on
# both sides, so "2*3*4" and "snake_case_" stay as written.
_INLINE = re.compile(
    r"(?<![\w`*])(?:"
    r"``(?P<literal>\S(?:.*?\S)?)``"
    r"|\*\*(?P<strong>\S(?:.*?\S)?)\*\*"
    r"|\*(?P<em>[^\s*](?:[^*]*?[^\s*])?)\*"
    r"|:(?P<role>[\w.+-]+(?::[\w.+-]+)?):`(?P<role_text>[^`]+)`"
    r"|`(?P<link>[^`<]*?)\s*<(?P<target>[^`>]+)>`__?"
    r"|`(?P<reference>[^`]+)`(?P<ref_end>__?)?"
    r")(?![\w])"
)


def rst_blocks(source: str) -> list[Block]:
    lines = source.split("\n")
    blocks: list[Block] = []
    i = 0
    literal_next = False  # the previous paragraph ended in "::"
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent:
            end = _indented_end(lines, i)
            body = "\n".join(_dedent(lines[i:end])).rstrip("\n")
            if literal_next or body.lstrip().startswith(">>>"):
                blocks.append(_literal(body, indent=2))
            else:  # a block quote (or a directive's body): its own subset, indented
                for inner in rst_blocks(body):
                    inner.indent += 2
                    blocks.append(inner)
            literal_next = False
            i = end
            continue
        literal_next = False
        title, after = _title(lines, i)
        if title is not None:
            blocks.append(Block(_inline(title.strip(), heading_style(1))))
            i = after
            continue
        end = _paragraph_end(lines, i)
        para = lines[i:end]
        if para[0].startswith(">>>"):
            blocks.append(_literal("\n".join(para)))
        elif _EXPLICIT.match(para[0]):  # a directive, comment or target: as written
            text = Text()
            piece(text, "\n".join(para), QUIET)
            blocks.append(Block(text))
        elif item := _ITEM.match(para[0]):
            blocks.append(_list_item(item.group(0).rstrip(), para, len(item.group(0)), blocks))
        elif field := _FIELD.match(para[0]):
            text = Text()
            piece(text, field.group(1) + ": ", "bold")
            text.append_text(_inline(" ".join([para[0][field.end() :], *para[1:]]).strip()))
            blocks.append(Block(text, gap=not _FIELD.match(_previous_first(lines, i))))
        else:
            joined = " ".join(p.strip() for p in para)
            if joined.endswith("::"):
                literal_next = True
                joined = joined[:-2].rstrip() + (":" if joined[:-2].strip() else "")
            if joined:
                blocks.append(Block(_inline(joined)))
        i = end
    return blocks


def _title(lines: list[str], i: int) -> tuple[str | None, int]:
    """A section title at line i (underlined, or over- and underlined), and the line after it."""
    line = lines[i]
    if _ADORNMENT.match(line) and i + 2 < len(lines) and lines[i + 1].strip():
        under = lines[i + 2]
        if under.strip() == line.strip() and len(lines[i + 1].rstrip()) <= len(line.rstrip()):
            return lines[i + 1], i + 3
    underlined = i + 1 < len(lines) and _ADORNMENT.match(lines[i + 1]) is not None
    if (
        underlined
        and not _ADORNMENT.match(line)
        and len(lines[i + 1].rstrip()) >= len(line.rstrip())
    ):
        return line, i + 2
    return None, i


def _paragraph_end(lines: list[str], i: int) -> int:
    end = i + 1
    while end < len(lines) and lines[end].strip() and not lines[end].startswith(" "):
        if any(p.match(lines[end]) for p in (_ITEM, _FIELD, _ADORNMENT, _EXPLICIT)):
            break
        end += 1
    # A list item or field keeps its indented continuation lines.
    if _ITEM.match(lines[i]) or _FIELD.match(lines[i]):
        while end < len(lines) and lines[end].startswith(" ") and lines[end].strip():
            end += 1
    return end


def _indented_end(lines: list[str], i: int) -> int:
    end = i
    while end < len(lines) and (not lines[end].strip() or lines[end].startswith(" ")):
        end += 1
    while end > i and not lines[end - 1].strip():
        end -= 1
    return end


def _dedent(lines: list[str]) -> list[str]:
    margin = min(len(x) - len(x.lstrip(" ")) for x in lines if x.strip())
    return [x[margin:] for x in lines]


def _previous_first(lines: list[str], i: int) -> str:
    j = i - 1
    return lines[j] if j >= 0 else ""


def _list_item(marker: str, para: list[str], width: int, blocks: list[Block]) -> Block:
    body = " ".join([para[0][width:], *(p.strip() for p in para[1:])]).strip()
    tight = bool(blocks) and bool(blocks[-1].prefix)
    return Block(_inline(body), prefix=marker + " ", gap=not tight)


def _literal(body: str, indent: int = 0) -> Block:
    text = Text()
    piece(text, body, CODE)
    return Block(text, indent=indent)


def _inline(source: str, base: str = "") -> Text:
    """One paragraph's inline markup as styled, literal text."""
    text = Text()
    at = 0
    for match in _INLINE.finditer(source):
        piece(text, source[at : match.start()], base)
        at = match.end()
        group = match.groupdict()
        if group["literal"] is not None:
            piece(text, group["literal"], f"{base} {CODE}".strip())
        elif group["strong"] is not None:
            piece(text, group["strong"], f"{base} bold".strip())
        elif group["em"] is not None:
            piece(text, group["em"], f"{base} italic".strip())
        elif group["role"] is not None:
            piece(text, group["role_text"], f"{base} {CODE}".strip())
        elif group["target"] is not None:
            piece(text, group["link"] or group["target"], f"{base} underline".strip())
            if group["link"]:
                piece(text, f" <{group['target']}>", QUIET)
        else:
            piece(text, group["reference"], f"{base} italic".strip())
    piece(text, source[at:], base)
    return text
