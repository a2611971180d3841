"""The document's highlights are found where they are drawn (widgets/doc_marks.py): the spans a
piece of the page gets, and the spans of the whole text when anything reads them, are those
``Text.highlight_regex`` made for each pattern in turn, then the "press m" line's, in that order."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.text import Text
from test_doc_lines import judge_app
from test_judge_support import run_async_tests

from goldset_tui.ui.widgets.doc_marks import MarkedText
from goldset_tui.ui.widgets.judge_parts import term_pattern

WORDS = ["api", "key", "keys", "rotate", "rotation", "the", "a", "x", "keyboard", "é", "ß"]
text_of_words = st.lists(
    st.tuples(st.sampled_from(WORDS), st.sampled_from([" ", "  ", "\n", ", ", "\n\n", "-"])),
    max_size=60,
).map(lambda parts: "".join(w + s for w, s in parts))


def plain_way(body: str, patterns: list[tuple[re.Pattern[str], str]], more: str | None) -> Text:
    text = Text(body, style="base")
    for pattern, style in patterns:
        text.highlight_regex(pattern, style=style)
    if more is not None:
        text.append("\n\n")
        text.append_text(Text(more, style="italic dim"))
    return text


@settings(max_examples=200, deadline=None)
@given(
    body=text_of_words,
    query=st.lists(st.sampled_from(WORDS), max_size=3).map(" ".join),
    find=st.one_of(st.none(), st.sampled_from(["key", "the k", "x", " ", "a a", "é"])),
    more=st.one_of(st.none(), st.just("[showing the first 20 of 99 characters; press m]")),
    cuts=st.lists(st.tuples(st.integers(0, 400), st.integers(1, 90)), max_size=8),
)
def test_the_spans_are_highlight_regexs_wherever_they_are_asked_for(
    body: str, query: str, find: str | None, more: str | None, cuts: list[tuple[int, int]]
) -> None:
    patterns = []
    pattern = term_pattern(query)
    if pattern is not None:
        patterns.append((pattern, "bold reverse"))
    if find:
        patterns.append((re.compile(re.escape(find), re.IGNORECASE), "found"))
    patterns.append((re.compile(r"(?=x)|y*"), "empty matches"))  # none of which makes a span
    expected = plain_way(body, patterns, more)
    tail = None
    if more is not None:
        tail = Text("\n\n")
        tail.append_text(Text(more, style="italic dim"))
    marked = MarkedText(Text(body, style="base"), patterns, tail)
    assert marked.plain == expected.plain
    for a, size in cuts:  # pieces asked for in any order, before the whole is read
        b = a + size
        assert marked.spans_between(a, b) == [
            s for s in expected.spans if s.end > a and s.start < b
        ]
    assert marked.spans == expected.spans
    assert marked == expected and marked.spans_between(0, 10) is None


async def test_landing_on_a_long_page_of_terms_finds_only_the_drawn_ones() -> None:
    text = "api key rotation " * 7_000  # every word a term: 3,500 on the first page
    app, session = judge_app(text)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        if session.current.doc_id != "long":
            await pilot.press("k" if session.pos else "j")
            await pilot.pause()
        shown = pilot.app.screen.query_one("#text").content
        assert isinstance(shown, MarkedText)
        (terms,) = shown._marks
        assert 0 < len(terms.spans) < 500  # the drawn rows' words, not the page's 3,500
        assert len(shown.spans) > 3_000  # and all of them when asked for


run_async_tests(globals())
