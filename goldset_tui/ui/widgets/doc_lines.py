"""The document's text, laid out only where it is seen.

A ``Static`` holding a long text lays all of it out on every change: Textual wraps every line
to the width, turns each into a strip of segments and keeps them, although the judging screen
shows 15 lines of it at 80x24. For the first page of a 120 KB candidate (20,000 characters, some
260 lines) that was most of the 60-75 ms of CPU a key landing on it cost, and ``m`` (the text
grown by a page) cost it again for all the pages shown so far.

``LazyText`` is that ``Static`` with the layout done per source line, on demand: its height is
the sum of each line's number of wrapped rows (``divide_line``, the very function Textual wraps
with; counted once per line's text and width, so the lines a page already had cost nothing when
``m`` adds one), and a row is drawn only when the screen asks for it, by handing its source line
alone to Textual's own renderer (``Visual.to_strips``). Textual wraps each source line on its own
(its wrapping never crosses a line break), so the rows are exactly those the plain ``Static``
drew: the same words on the same rows, the same styles, the snapshots unchanged. What it holds
(``content``: the ``rich.text.Text`` built by ``doc_text``, literal, highlighted) is unchanged
too, and so is what a mouse selection copies. Rendered documents (Markdown, reST: a group of
blocks, not one text) are drawn by ``Static`` as before; they are shown a page at a time.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate
from typing import NamedTuple

from rich._wrap import divide_line
from rich.text import Span, Text
from textual.content import Content
from textual.geometry import Offset, Size
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.visual import VisualType
from textual.widgets import Static

from goldset_tui.ui.widgets.doc_marks import MarkedText


def breaks(line: str, width: int) -> list[int]:
    """Where Textual wraps ``line`` at ``width``: the offsets of its rows after the first (it
    folds words longer than the width). Exactly ``rich._wrap.divide_line``, which Textual uses;
    a line of printable ASCII (one cell a character, one kind of space) takes a shortcut that
    jumps a row at a time instead of a word at a time, three to four times faster."""
    if not line or width <= 0:
        return []
    if line.isascii() and line.isprintable():
        return _ascii_breaks(line, width)
    return divide_line(line, width, fold=True)


_NON_SPACE = re.compile(r"[^ ]")


def _ascii_breaks(s: str, width: int) -> list[int]:
    """``divide_line(s, width)`` for printable ASCII ``s``, row by row. A word is its non-space
    characters and the spaces after them (the first word also the spaces before it); it fits on
    the row started at ``row`` while its non-space end is at most ``row + width``."""
    last = len(s.rstrip(" "))  # where the last word's characters end
    lead = len(s) - len(s.lstrip(" "))  # the first word's characters start here (it starts at 0)
    out: list[int] = []
    row = 0
    while last > row + width:
        limit = row + width
        # The first word that does not fit: the one over ``limit``, or the next one after it.
        over = s[limit] != " "
        start = s.rfind(" ", row, limit) + 1 if over else _NON_SPACE.search(s, limit).start()  # type: ignore[union-attr]
        chars = max(start, lead)
        if start == lead:
            start = 0
        end = s.find(" ", chars)
        end = len(s) if end < 0 else end
        if end - start <= width:  # on the next row
            out.append(start)
            row = start
            continue
        # Longer than a row: cut in rows of ``width`` characters, its spaces included.
        after = _NON_SPACE.search(s, end)
        size = (after.start() if after else len(s)) - start
        cuts = range(start, start + size, width)
        out.extend(cut for cut in cuts if cut)
        row = cuts[-1]
    return out


class Unit(NamedTuple):
    """A run of rows drawn together: a source line, or a piece of a long one."""

    line: int  # which source line
    start: int  # its characters [start, end) within the line
    end: int
    last: bool  # the line's last piece


class LazyText(Static):
    """A ``Static`` that lays out and draws a plain ``Text`` only where it is seen."""

    # Rows counted per (line, width): kept across texts, since "m" shows the same lines again
    # with more after them; bounded, as a day of judging shows many texts (the keys hold the
    # lines: 10,000 paragraphs are a few MB).
    ROW_CACHE_LIMIT = 10_000
    STRIP_CACHE_LIMIT = 512
    PIECE_ROWS = 16  # a long line is drawn in pieces of this many rows (a screen's worth)

    def __init__(self, content: VisualType = "", *, id: str | None = None) -> None:
        super().__init__(content, id=id)
        self._rows: dict[tuple[str, int], list[int]] = {}  # (line, width) -> its breaks
        self._reset()
        self._take(content)

    def _reset(self) -> None:
        self._lines: list[str] | None = None  # the source lines of a plain text (None: not one)
        self._starts: list[int] = []  # where each source line starts in the text
        self._links: bool | None = None  # whether a style of the text may carry a click action
        self._index: tuple[list[int], list[int], int] | None = None  # see _spans_over
        self._width = -1  # the width the layout below is for
        self._units: list[Unit] = []  # what is drawn together, in order
        self._ends: list[int] = []  # rows up to and including each unit
        self._strips: dict[int, list[Strip]] = {}  # unit -> its rows, at self._width

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        self._reset()
        # A tab widens its line when Textual draws it: such a text is drawn whole, as Static does.
        if not isinstance(content, Text) or "\t" in content.plain:
            super().update(content, layout=layout)
            return
        # Static.update would turn the whole text into Textual's Content at once (10 ms for two
        # pages): kept as it is instead, turned into Content only if something asks for all of it
        # (Static.visual does that lazily: a selection being copied).
        self._Static__content = content
        self._Static__visual = None
        self.refresh(layout=layout)
        self._take(content)

    def _take(self, content: VisualType) -> None:
        if isinstance(content, Text) and "\t" not in content.plain:
            self._lines = content.plain.split("\n")
            self._starts = [0, *accumulate(len(line) + 1 for line in self._lines)]

    def put(self, content: VisualType) -> None:
        """Show ``content``, with a layout pass only if its height changes (a plain text's rows
        are counted here for that, cheaply; anything else is measured by Textual)."""
        shown = self.content
        if isinstance(shown, Text) and isinstance(content, Text) and shown == content:
            return
        width, height = self.content_region.width, self.content_region.height
        if not isinstance(content, Text) or width <= 0:
            self.update(content)
            return
        self.update(content, layout=False)
        if self.get_content_height(Size(width, 0), Size(width, 0), width) != height:
            self.refresh(layout=True)

    def rows_at(self, width: int) -> int | None:
        """How many rows the text takes at ``width`` (None: not a plain text, Textual measures)."""
        if self._lines is None or width <= 0:
            return None
        return self.get_content_height(Size(width, 0), Size(width, 0), width)

    def _layout(self, width: int) -> list[int]:
        if width != self._width:
            assert self._lines is not None
            cache = self._rows
            if len(cache) > self.ROW_CACHE_LIMIT:
                cache.clear()
            units: list[Unit] = []
            counts: list[int] = []
            for i, line in enumerate(self._lines):
                key = (line, width)
                found = cache.get(key)
                if found is None:
                    found = cache[key] = breaks(line, width)
                if len(found) < self.PIECE_ROWS:  # one unit
                    units.append(Unit(i, 0, len(line), True))
                    counts.append(len(found) + 1)
                    continue
                # A long line (a text with no line breaks): pieces of PIECE_ROWS rows, each
                # wrapped on its own from a row's start, which is where Textual broke it too.
                edges = [0, *found, len(line)]
                for r in range(0, len(edges) - 1, self.PIECE_ROWS):
                    stop = min(r + self.PIECE_ROWS, len(edges) - 1)
                    units.append(Unit(i, edges[r], edges[stop], stop == len(edges) - 1))
                    counts.append(stop - r)
            self._units, self._ends = units, list(accumulate(counts))
            self._width = width
            self._strips.clear()
        return self._ends

    # ----- Textual's hooks ------------------------------------------------------------------
    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if self._lines is None:
            return super().get_content_height(container, viewport, width)
        return self._layout(width)[-1] if width and self._lines else 0

    def render_line(self, y: int) -> Strip:
        if self._lines is None or self.BLANK:
            return super().render_line(y)
        width = self.size.width
        if self._dirty_regions:  # what Static would render again: these rows are still good
            self._dirty_regions.clear()
            self._strips.clear()  # ... unless the styles changed (a theme, a selection)
        ends = self._layout(width)
        u = bisect_right(ends, y)
        if u >= len(ends):
            return Strip.blank(width, self.visual_style.rich_style)
        strips = self._unit_strips(u, width)
        row = y - (ends[u - 1] if u else 0)
        return strips[row] if row < len(strips) else Strip.blank(width)

    def _unit_strips(self, u: int, width: int) -> list[Strip]:
        selection = self.text_selection
        cached = self._strips.get(u) if selection is None else None
        if cached is not None:
            return cached
        unit = self._units[u]
        strips = self._draw(unit, width, selection)
        if selection is None:
            if len(self._strips) > self.STRIP_CACHE_LIMIT:
                self._strips.clear()
            self._strips[u] = strips
        return strips

    def _draw(self, unit: Unit, width: int, selection: Selection | None) -> list[Strip]:
        """The unit's rows, as ``Visual.to_strips`` draws a ``Static``'s: Textual's own wrapping
        and formatting of the piece, each row then told where it is in the whole text (the
        offsets a mouse selection reads), and the selection shifted to the piece likewise."""
        visual = Content.from_rich_text(self._piece(unit), console=self.app.console)
        selection_style = None
        if selection is not None:

            def here(at: Offset | None) -> Offset | None:
                if at is None:
                    return None
                x = max(at.x - unit.start, 0) if at.y == unit.line else at.x
                return Offset(x, at.y - unit.line)

            selection = Selection(here(selection.start), here(selection.end))
            selection_style = Style.from_styles(
                self.screen.get_component_styles("screen--selection")
            )
        rule = self.styles.get_rule
        rows = visual._wrap_and_format(
            width,
            align=rule("text_align", "left"),  # type: ignore[arg-type]
            overflow=rule("text_overflow", "fold"),  # type: ignore[arg-type]
            no_wrap=rule("text_wrap", "wrap") == "nowrap",
            line_pad=rule("line_pad", 0),  # type: ignore[arg-type]
            tab_size=8,
            selection=selection,
            selection_style=selection_style,
            get_style=self._get_style,
        )
        for row in rows:
            row.x += unit.start
            row.y = unit.line
        strips = [Strip(*row.to_strip(self.visual_style)) for row in rows]
        # Textual styles the segments that carry a click action; reading every segment's meta to
        # find none was a third of a row's cost. Only a Style object can carry one (literal()
        # text has style names, never markup): looked for once per text.
        if self._clickable(self.content) and self.auto_links and not self.screen._selecting:
            strips = [strip._apply_link_style(self.link_style) for strip in strips]
        return strips

    def _clickable(self, text: object) -> bool:
        if self._links is None:
            assert isinstance(text, Text)
            # A highlight's style is a name: only the text's own spans may carry an action.
            spans = text.own_spans() if isinstance(text, MarkedText) else text.spans
            styles = [text.style, *(span.style for span in spans)]
            self._links = any(not isinstance(style, str) and style._meta for style in styles)
        return self._links

    def _piece(self, unit: Unit) -> Text:
        """The unit's characters with their styles (rich's own slicing reads every span of the
        text: here the spans are found by where they start)."""
        text = self.content
        assert isinstance(text, Text) and self._lines is not None
        line, a, b = self._lines[unit.line], unit.start, unit.end
        chars = line[a:b] if unit.last else line[a:b].rstrip()  # as Textual cuts a row
        at = self._starts[unit.line] + a  # where the piece starts in the whole text
        # (an empty line gets no span at all: an empty span changes how Textual draws it)
        spans = (
            [
                Span(max(s.start - at, 0), min(s.end - at, len(chars)), s.style)
                for s in self._spans_over(text, at, at + len(chars))
            ]
            if chars
            else []
        )
        return Text(chars, style=text.style, spans=spans, end="", no_wrap=False)

    def _spans_over(self, text: Text, a: int, b: int) -> list[Span]:
        """The text's spans that overlap its characters [a, b), in their order (which decides
        which style wins). A page holds thousands of highlighted words: an index of where the
        spans start, built on the first draw, finds a piece's few."""
        if isinstance(text, MarkedText):  # its highlights, found as far as drawn
            lit = text.spans_between(a, b)
            if lit is not None:
                return lit
        spans = text.spans
        if self._index is None:
            order = sorted(range(len(spans)), key=lambda k: spans[k].start)
            longest = max((s.end - s.start for s in spans), default=0)
            self._index = ([spans[k].start for k in order], order, longest)
        starts, order, longest = self._index
        lo, hi = bisect_right(starts, a - longest), bisect_right(starts, b - 1)
        found = sorted(k for k in order[lo:hi] if spans[k].end > a and spans[k].start < b)
        return [spans[k] for k in found]
