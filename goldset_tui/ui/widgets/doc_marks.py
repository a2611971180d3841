"""A document's highlighted words, found where the screen draws them.

The judging screen lights a query's terms (and ctrl+f's word) in a page of up to 20,000
characters, of which it shows some 1,200. ``Text.highlight_regex`` finds every match of the page
and makes a span of each at once: on a page where every word is a term, 3,500 spans and 3.5 ms on
the key that lands on it, most of them never drawn. ``MarkedText`` is that ``Text`` with its
highlight spans found on demand: the widget that draws a piece asks for the spans over it
(:meth:`MarkedText.spans_between`), and each pattern's matches are found in order, from the start,
only as far as that piece. Anything else that reads the spans (Rich's own methods, a test, a
selection being copied) gets all of them, found then, exactly those ``highlight_regex`` made, in
the same order: the text's own spans, each pattern's matches in turn, then the spans of the text
after the highlighted body (the "press m for more" line, never highlighted).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence

from rich.text import Span, Text

_SPANS = Text.__dict__["_spans"]  # the slot that holds a Text's spans


class _Matches:
    """One pattern's non-empty matches in ``plain[:end]``, found in order as far as asked."""

    def __init__(self, pattern: re.Pattern[str], style: str, plain: str, end: int) -> None:
        self.style = style
        self._found: Iterator[re.Match[str]] | None = pattern.finditer(plain, 0, end)
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.spans: list[Span] = []

    def reach(self, limit: int | None) -> None:
        """Find matches until one starts at or after ``limit`` (None: all of them)."""
        while self._found is not None and (
            limit is None or not self.starts or self.starts[-1] < limit
        ):
            match = next(self._found, None)
            if match is None:
                self._found = None
                break
            start, end = match.span()
            if end > start:  # as highlight_regex: an empty match makes no span
                self.starts.append(start)
                self.ends.append(end)
                self.spans.append(Span(start, end, self.style))

    def over(self, a: int, b: int) -> list[Span]:
        self.reach(b)
        # Matches do not overlap: ordered by start, they are ordered by end too.
        return self.spans[bisect_right(self.ends, a) : bisect_left(self.starts, b)]


class MarkedText(Text):
    """``body`` with each ``(pattern, style)`` of ``marks`` highlighted, then ``tail`` (not
    highlighted) appended: as ``body.highlight_regex(pattern, style)`` for each in turn and then
    ``body.append_text(tail)``, with the highlight spans found when asked for."""

    __slots__ = ("_head", "_marks", "_tail", "_pending")

    def __init__(
        self, body: Text, marks: Sequence[tuple[re.Pattern[str], str]], tail: Text | None = None
    ) -> None:
        self._pending = False
        super().__init__(
            body.plain,
            style=body.style,
            justify=body.justify,
            overflow=body.overflow,
            no_wrap=body.no_wrap,
            end=body.end,
            tab_size=body.tab_size,
        )
        end = len(self.plain)
        self._head = list(body.spans)
        self._tail: list[Span] = []
        if tail is not None:
            self._text.append(tail.plain)
            self._length += len(tail)
            self._tail = [span.move(end) for span in tail.spans]
        self._marks = [_Matches(pattern, style, self.plain, end) for pattern, style in marks]
        self._pending = True

    @property
    def _spans(self) -> list[Span]:
        if self._pending:
            self._pending = False
            for marks in self._marks:
                marks.reach(None)
            lit = [*self._head, *(s for m in self._marks for s in m.spans), *self._tail]
            _SPANS.__set__(self, lit)
        spans: list[Span] = _SPANS.__get__(self, Text)
        return spans

    @_spans.setter
    def _spans(self, spans: list[Span]) -> None:
        self._pending = False  # set whole (Rich's own methods): these are the spans now
        _SPANS.__set__(self, spans)

    def spans_between(self, a: int, b: int) -> list[Span] | None:
        """The spans over characters [a, b), in their order in ``spans``; None once ``spans`` is
        whole (then it is the one to read)."""
        if not self._pending:
            return None
        found = [s for s in self._head if s.end > a and s.start < b]
        for marks in self._marks:
            found += marks.over(a, b)
        found += [s for s in self._tail if s.end > a and s.start < b]
        return found

    def own_spans(self) -> list[Span]:
        """The spans that are not highlights (the body's and the tail's; once ``spans`` is whole,
        and may have been added to, all of them): only these may carry more than a style name."""
        return [*self._head, *self._tail] if self._pending else self._spans
