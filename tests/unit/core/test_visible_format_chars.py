"""Invisible format characters (Unicode category Cf) are shown escaped, so distinct ids never
read alike; joiners inside words shown for reading are kept."""

from __future__ import annotations

import sys
import unicodedata

import pytest

from goldset_tui.text import visible


def test_a_zero_width_space_keeps_two_ids_apart():
    assert visible("q\u200b2") == "q<U+200B>2" != visible("q2")
    assert visible("q\u200b2", keep_newlines=False) == "q<U+200B>2"


@pytest.mark.parametrize(
    "ch", ["\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u2060", "\u2064", "\ufeff", "\u00ad"]
)
def test_each_invisible_character_is_escaped(ch):
    assert visible(f"a{ch}b") == f"a<U+{ord(ch):04X}>b"
    assert visible(f"a{ch}b", reading=True) == f"a<U+{ord(ch):04X}>b"  # between ASCII letters


def test_every_format_character_python_knows_is_escaped():
    # Independent reference: unicodedata's own category table, every code point.
    missed = [
        f"U+{c:04X}"
        for c in range(sys.maxunicode + 1)
        if unicodedata.category(chr(c)) == "Cf" and visible(chr(c)) == chr(c)
    ]
    assert missed == []


def test_legitimate_text_is_untouched():
    for text in ["café naïve", "東京タワー", "😀 👍🏽", "Ελληνικά", "עברית"]:
        assert visible(text) == text and visible(text, reading=True) == text


def test_joiners_between_non_ascii_are_kept_only_for_reading():
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one emoji: man, woman, girl
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # "I want", with a ZWNJ
    for text in [family, persian]:
        assert visible(text, reading=True) == text
        assert "<U+200" in visible(text)  # an id or a name: every joiner shown
    # Tag characters can spell hidden text after a flag: escaped even for reading.
    assert "<U+E0067>" in visible("\U0001f3f4\U000e0067\U000e0062\U000e007f", reading=True)
    # A joiner next to a space or another format character is not joining a word.
    assert visible("\u00e9\u200d \u00e9", reading=True) == "\u00e9<U+200D> \u00e9"


def test_bidi_controls_still_escaped():
    assert visible("a\u202eb\u2066c", reading=True) == "a<U+202E>b<U+2066>c"
