"""Query-term highlighting is done by spans on literal text, never by markup."""

from __future__ import annotations

from goldset_tui.ui.widgets.judge_parts import highlighted, query_terms


def spans(text) -> list[str]:
    return [text.plain[s.start : s.end] for s in text.spans if "reverse" in str(s.style)]


def test_terms_drop_stopwords_and_repeats() -> None:
    assert query_terms("How do I rotate an API key, api KEY?") == ["rotate", "api", "key"]


def test_whole_words_only_case_insensitive() -> None:
    t = highlighted(
        "Rotate the API key; keyboard and rotator are not matches. api_key is one word.",
        "rotate api key",
    )
    assert spans(t) == ["Rotate", "API", "key"]


def test_word_forms_of_the_terms_are_highlighted_too() -> None:
    # "rotate api key" lit nothing in "Key Rotation: keys are rotated" (whole words only).
    t = highlighted(
        "Key Rotation: keys are rotated, rotating APIs; a keyboard is not.", "rotate api key"
    )
    assert spans(t) == ["Key", "Rotation", "keys", "rotated", "rotating", "APIs"]
    t = highlighted("the database is locked; lock the databases", "sqlite database locked")
    assert spans(t) == ["database", "locked", "lock", "databases"]


def test_word_forms_can_be_switched_off() -> None:
    from goldset_tui.ui.widgets.judge_parts import term_pattern

    pattern = term_pattern("rotate api key", forms=False)
    assert pattern is not None
    assert [m.group(0) for m in pattern.finditer("Rotation keys rotate key")] == ["rotate", "key"]


def test_markup_in_text_and_query_stays_text() -> None:
    t = highlighted("see [bold]rotate[/bold] and [@click=app.quit]x[/]", "[bold] rotate")
    assert t.plain == "see [bold]rotate[/bold] and [@click=app.quit]x[/]"
    assert spans(t) == ["bold", "rotate", "bold"]


def test_regex_characters_in_the_query_are_literal() -> None:
    t = highlighted("call f(x) or f.x or c++ here", "f(x) c++ .*")
    assert t.plain == "call f(x) or f.x or c++ here"  # no crash, nothing odd highlighted
    assert all(s in {"f", "x"} for s in spans(t))


def test_controls_become_placeholders_before_highlighting() -> None:
    t = highlighted("\x1b[31m key\x07", "key")
    assert t.plain == "\u241b[31m key\u2407" and spans(t) == ["key"]


def test_long_text_is_paged() -> None:
    t = highlighted("word " * 10_000, "word", limit=100)
    assert (
        t.plain.startswith("word word") and "showing the first 100 of 50,000 characters" in t.plain
    )
