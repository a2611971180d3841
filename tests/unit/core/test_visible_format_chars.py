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


# --- characters that show as nothing without being format characters ---------------------------

FILLERS = ["\u3164", "\uffa0", "\u115f", "\u1160", "\u034f"]


@pytest.mark.parametrize("ch", FILLERS)
def test_hangul_fillers_and_the_grapheme_joiner_keep_two_ids_apart(ch):
    # They were shown as they are: blank, so "q1" and "q<filler>1" read alike and "<filler>"
    # alone read as an empty id.
    assert visible(f"q{ch}1") == f"q<U+{ord(ch):04X}>1" != visible("q1")
    assert visible(ch, keep_newlines=False) == f"<U+{ord(ch):04X}>"
    assert visible(f"q{ch}1", reading=True) == f"q<U+{ord(ch):04X}>1"  # between ASCII too


def test_every_default_ignorable_code_point_is_escaped_in_ids():
    # Independent reference: the `regex` package's table of Unicode's Default_Ignorable_Code_Point
    # (DerivedCoreProperties.txt), which unicodedata does not expose.
    import regex

    ignorable = regex.compile(r"\p{Default_Ignorable_Code_Point}")
    found = [c for c in range(sys.maxunicode + 1) if ignorable.match(chr(c))]
    assert len(found) > 4000  # the property table is really there (the tag block alone: 4,096)
    missed = [f"U+{c:04X}" for c in found if visible(chr(c)) != f"<U+{c:04X}>"]
    assert missed == []


@pytest.mark.parametrize("ch", ["\u2800", "\ufffc", "\u2028", "\u2029", "\U000e0000", "\u2065"])
def test_other_blank_characters_are_escaped_in_ids(ch):
    assert visible(f"d{ch}7") == f"d<U+{ord(ch):04X}>7"


def test_the_braille_blank_is_kept_for_reading():
    braille = "\u2813\u2811\u2807\u2807\u2815\u2800\u283a\u2815\u2817\u2807\u2819"  # "hello world"
    assert visible(braille, reading=True) == braille
    assert "<U+2800>" in visible(braille)


def test_variation_selectors_are_kept_only_after_what_they_vary():
    heart = "\u2764\ufe0f"  # red heart, emoji presentation
    keycap = "1\ufe0f\u20e3"
    flag = "\U0001f3f3\ufe0f\u200d\U0001f308"  # rainbow flag: selector, then a joiner
    ideograph = "\u845b\U000e0100"  # an ideographic variation sequence (Adobe-Japan1)
    mongolian = "\u1820\u180b"
    for text in [heart, keycap, flag, ideograph, mongolian]:
        assert visible(text, reading=True) == text
        assert "<U+" in visible(text)  # an id: shown
    # After ASCII, doubled, or leading: hidden data (the "emoji smuggling" trick), so shown.
    assert visible("a\ufe0fb", reading=True) == "a<U+FE0F>b"
    assert visible(f"{heart}\ufe0f", reading=True) == f"{heart}<U+FE0F>"
    assert visible("\U000e0100x", reading=True) == "<U+E0100>x"


def test_hangul_fillers_in_an_old_hangul_syllable_are_kept_for_reading():
    no_initial = "\u115f\u1161"  # choseong filler + vowel: a syllable without its first jamo
    no_vowel = "\u1100\u1160"  # initial consonant + jungseong filler
    for text in [no_initial, no_vowel]:
        assert visible(text, reading=True) == text
        assert "<U+11" in visible(text)
    # The compatibility fillers have no such use: escaped everywhere.
    assert visible("\uac00\u3164\uac00", reading=True) == "\uac00<U+3164>\uac00"
    assert visible("\u115f ", reading=True) == "<U+115F> "
