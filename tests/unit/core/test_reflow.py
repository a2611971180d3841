"""Hard-wrapped documents are joined back into paragraphs, so the screen can wrap them to its own
width; every break that means something (short lines, code, lists, titles) is kept, and only
line breaks ever change."""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from goldset_tui.ui.text.reflow import margin, reflow

PROSE = (
    "To rotate an API key, create a second key and deploy it everywhere the first one is used. "
    "Both keys stay valid during the overlap, so no client ever sees an authentication error. "
    "When every client uses the new key, revoke the first one; keys older than ninety days are "
    "flagged in the console and in the weekly security report."
)


def test_a_paragraph_wrapped_at_72_becomes_one_line() -> None:
    wrapped = textwrap.fill(PROSE, 72)
    assert wrapped.count("\n") >= 3
    assert reflow(wrapped) == PROSE


def test_paragraphs_stay_apart_and_each_is_joined() -> None:
    text = textwrap.fill(PROSE, 70) + "\n\n" + textwrap.fill(PROSE, 70)
    assert reflow(text) == PROSE + "\n\n" + PROSE


def test_short_lines_broken_on_purpose_are_kept() -> None:
    text = (
        "Subclass of ValueError with the following additional properties, all set:\n\n"
        "msg: The unformatted error message\n"
        "doc: The JSON document being parsed\n"
        "pos: The start index of doc where parsing failed"
    )
    assert reflow(text) == text


def test_code_titles_lists_and_doctests_are_kept_as_written() -> None:
    para = textwrap.fill(PROSE, 72)
    code = "    >>> import json\n    >>> json.dumps([1, 2, 3], separators=(',', ':'))"
    listing = "- first item of a list that is long enough to have been full when wrapped\n- two"
    title = "Rotating keys: the whole procedure, step by step for every client we have\n" + "=" * 72
    fence = "```\n" + "x = 1 " * 11 + "\ny = 2\n```"
    doctest = ">>> print('a line long enough to reach the margin of the paragraph above it')\nok"
    text = "\n\n".join([title, para, code, listing, fence, doctest])
    out = reflow(text).split("\n\n")
    assert out == [title, PROSE, code, listing, fence, doctest]


def test_a_list_item_and_its_continuation_are_joined() -> None:
    item = "- " + textwrap.fill(PROSE, 70, subsequent_indent="  ")[0:]
    other = "- a second item"
    out = reflow(textwrap.fill(PROSE, 72) + "\n\n" + item + "\n" + other)
    assert out.split("\n") == [PROSE, "", "- " + PROSE, other]


def test_a_line_ending_in_double_colon_keeps_its_literal_block() -> None:
    text = textwrap.fill(PROSE, 72) + "\nEncoding basic Python object hierarchies::\n    >>> x"
    assert reflow(text).endswith("hierarchies::\n    >>> x")


def test_no_margin_no_change() -> None:
    # One long unwrapped line then a short one: nothing says the lines were wrapped.
    text = PROSE + "\nThe end."
    assert margin(text.split("\n")) is None and reflow(text) == text
    assert reflow("one line") == "one line"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab :*-=#>.\n    `1")), max_size=400))
def test_only_line_breaks_change(text: str) -> None:
    out = reflow(text)
    # Same characters apart from whitespace, same words in the same order.
    assert out.split() == text.split()
    assert out.count("\n") <= text.count("\n")
    assert len(out) <= len(text) + text.count("\n")


def test_a_one_word_orphan_ending_indented_prose_joins_the_line_above() -> None:
    # os.access's docstring (the sample pool): "directory." stood alone on a line on every screen.
    text = (
        "access(path, mode, *, dir_fd=None, effective_ids=False, follow_symlinks=True)\n"
        "\n"
        "Use the real uid/gid to test for access to a path.\n"
        "\n"
        "  dir_fd\n"
        "    If not None, it should be a file descriptor open to a directory,\n"
        "    and path should be relative; path will then be relative to that\n"
        "    directory.\n"
        "  mode\n"
        "    Operating-system mode bitfield.\n"
    )
    lines = reflow(text).split("\n")
    assert "    and path should be relative; path will then be relative to that directory." in lines
    assert "    directory." not in lines
    assert "  mode" in lines and "  dir_fd" in lines  # the parameter names stay on their lines


def test_one_word_code_lines_stay_as_written() -> None:
    text = (
        "A paragraph long enough to set the margin of this document near seventy columns.\n"
        "Another line of ordinary prose, also long enough to count as full here.\n"
        "\n"
        "    for chunk in JSONEncoder().iterencode(bigobject): write it out to the socket\n"
        "        pass\n"
        "    except TypeError, when the object cannot be encoded by the encoder at all:\n"
        "    raise\n"
    )
    assert reflow(text).split("\n")[-5:] == text.split("\n")[-5:]
