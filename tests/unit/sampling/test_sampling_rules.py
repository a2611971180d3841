"""The query-shape rules: the worked example's queries (docs/background.md#worked-examples), the
usual snippet's fragilities, and the vectorised rules checked against an independent per-query
reading of the documented rules."""

from __future__ import annotations

import re
import string
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldset_tui.errors import InputError
from goldset_tui.sampling.rules import STRATA, apply_rule, classify_frame, classify_one, load_rules

# A corpus vocabulary in which "paginaton" is absent, as in the worked example.
VOCAB = frozenset(
    [
        "pagination",
        "parameters",
        "which",
        "regions",
        "are",
        "covered",
        "on",
        "webhook",
        "delivery",
        "how",
        "do",
        "i",
        "stop",
        "the",
        "sync",
        "from",
        "running",
        "twice",
        "rotate",
        "an",
        "api",
        "key",
        "export",
        "csv",
        "and",
        "to",
        "with",
        "for",
        "accounts",
        "nightly",
        "call",
    ]
)


# --- the usual snippet, verbatim: the reference for what it gets wrong --------------------------
SEED_IDENT = re.compile(r"[A-Z]{2,}_\d+|\b\w+_\w+\b|\b[a-z]+[A-Z]\w+\b|/v\d+/")
SEED_NEGATION = {"not", "without", "except", "excluding", "unsupported", "cannot"}


def seed_stratum(q: str, vocab: set[str]) -> str:
    toks = q.lower().split()
    if SEED_IDENT.search(q):
        return "exact_identifier"
    if SEED_NEGATION & set(toks):
        return "negation"
    if any(t.isalpha() and t not in vocab for t in toks):
        return "misspelled"
    if len(toks) <= 3:
        return "short_keyword"
    if sum(1 for t in toks if t.istitle()) >= 2:
        return "multi_entity"
    return "paraphrase"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("ERR_4021 on webhook delivery", "exact_identifier"),  # the worked example's
        ("paginaton parameters", "misspelled"),  # the worked example's, typed that way
        ("which regions are not covered", "negation"),  # the worked example's
        ("how do I stop the sync from running twice", "paraphrase"),  # the worked example's
        ("how to call getUserById", "exact_identifier"),  # camelCase
        ("call /v2/accounts for the key", "exact_identifier"),  # versioned path
        ("export user_id to csv", "exact_identifier"),  # snake_case
        ("export csv without headers", "negation"),
        ("api key", "short_keyword"),
        ("Sync Stripe and Salesforce accounts nightly", "multi_entity"),
        ("which regions are not covered paginaton", "negation"),  # first match wins
    ],
)
def test_seed_example_queries(query: str, expected: str) -> None:
    vocab = VOCAB | {"headers", "stripe", "salesforce", "sync"}
    assert classify_one(query, vocab) == expected


def test_without_vocabulary_the_misspelled_rule_is_skipped() -> None:
    assert classify_one("paginaton parameters", None) == "short_keyword"
    assert classify_one("paginaton parameters", VOCAB) == "misspelled"


def test_identifier_needs_the_original_case_which_the_seed_loses_after_normalising() -> None:
    # The snippet's camelCase alternative cannot match once goldset has lowercased the query.
    assert seed_stratum("how to call getUserById", VOCAB | {"getuserbyid"}) == "exact_identifier"
    assert seed_stratum("how to call getuserbyid", VOCAB | {"getuserbyid"}) == "paraphrase"
    # We classify the spelling (case kept), so the normalised log keeps the identifier.
    assert classify_one("how to call getUserById", VOCAB) == "exact_identifier"


def test_multi_entity_is_unreachable_in_the_seed_snippet_but_not_here() -> None:
    q = "Sync Stripe and Salesforce accounts nightly"
    vocab = VOCAB | {"stripe", "salesforce", "sync"}
    assert seed_stratum(q, vocab) == "paraphrase"  # istitle() on lowercased tokens: never true
    assert classify_one(q, vocab) == "multi_entity"
    # A capitalised first word and the pronoun I are not entities.
    assert classify_one("How do I rotate an api key", vocab) == "paraphrase"


def test_punctuation_does_not_hide_negation_or_misspelling() -> None:
    assert seed_stratum("which regions are not, covered", VOCAB) == "paraphrase"
    assert classify_one("which regions are not, covered", VOCAB) == "negation"
    assert classify_one("paginaton?", VOCAB) == "misspelled"


# --- independent per-query reading of the documented rules -----------------------------------------
EDGE = ".,;:!?\"'()[]{}"


def reference(spelling: str, vocab: frozenset[str] | None) -> str:
    toks = spelling.split()
    words = [t.lower().strip(EDGE) for t in toks]
    if SEED_IDENT.search(spelling):
        return "exact_identifier"
    if SEED_NEGATION & set(words):
        return "negation"
    if vocab is not None and any(w.isalpha() and w not in vocab for w in words):
        return "misspelled"
    if len(toks) <= 3:
        return "short_keyword"
    if sum(1 for t in toks[1:] if t.istitle() and t != "I") >= 2:
        return "multi_entity"
    return "paraphrase"


WORDS = [
    "not",
    "Not",
    "api",
    "key",
    "Stripe",
    "I",
    "paginaton",
    "pagination",
    "ERR_12",
    "a_b",
    "getX",
    "/v2/",
    "How",
    "sync,",
    "without",
    "(except)",
    "x",
    "AB",
]
token = st.one_of(
    st.sampled_from(WORDS),
    st.text(alphabet=string.ascii_letters + string.digits + "_/.,", min_size=1, max_size=6),
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(token, min_size=1, max_size=7).map(" ".join), min_size=1, max_size=25),
    st.booleans(),
)
def test_vectorised_rules_match_the_per_query_reading(queries: list[str], with_vocab: bool) -> None:
    vocab = VOCAB if with_vocab else None
    got = classify_frame(pl.Series(queries), vocab).to_list()
    assert got == [reference(q, vocab) for q in queries]
    assert set(got) <= set(STRATA)


def test_rules_can_be_replaced_from_a_file(tmp_path: Path) -> None:
    f = tmp_path / "my_rules.py"
    f.write_text("def shape(q, vocab):\n    return 'long' if len(q.split()) > 2 else 'short'\n")
    rule = load_rules(f"{f}:shape")
    assert apply_rule(rule, pl.Series(["a b c", "a"]), None).to_list() == ["long", "short"]


def test_bad_rules_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="module:function"):
        load_rules("nocolon")
    with pytest.raises(InputError, match="no function"):
        load_rules("goldset_tui.sampling.rules:nope")
    with pytest.raises(InputError, match="could not load"):
        load_rules("no_such_module_xyz:f")
    f = tmp_path / "bad.py"
    f.write_text("def shape(q, vocab):\n    return None\n")
    with pytest.raises(InputError, match="expected a stratum"):
        apply_rule(load_rules(f"{f}:shape"), pl.Series(["q"]), None)


# --- exotic Unicode: the vectorised rules against Python's re and str on every string ----------
# Letters and digits whose Python and Rust (Polars) readings could part ways: decomposed accents
# (combining marks are word characters to Rust's \w, not to Python's), Roman numerals (letter-like
# numbers, cased by Unicode's Other_Uppercase), titlecase digraphs, non-ASCII and superscript
# digits, circled letters, fullwidth forms and connector punctuation, joiners, final sigma, the
# Turkish dotted I, ligatures, ordinal indicators and modifier letters.
# (A string split, not a list literal: escapes keep the decomposed forms visible as such.)
EXOTIC = (  # noqa: SIM905
    "e\u0301 a\u0308 \u0301 Ⅻ ⅻ Ⅷx ǅ ǈ ǋ ǲ ǅa ٣ ४ １ ² ³ ① Ⓐ ⓐ Ａ ｚ ＿ ‿ \u200d \u200c "
    "Σ ς ΑΣ ΟΔΟΣ İ ı ß ẞ ﬁ ª º ʰ 一 〇 ๑ ǆ Ǆ ᾈ ᾀ ﹍ ⁀ x\u0301_y a_b\u0301 é_x ǅx_y"
).split()
# Python's str.split() also splits on the four ASCII separators U+001C-U+001F, which are not
# Unicode White_Space.
SPACES = [" ", "\t", "\u00a0", "\u2028", "\u3000", "\x85", "\x1c", "\x1f", "\x0c", "  "]
# Five modifier letters became Lowercase in Unicode 15; Python 3.11's tables (14.0) predate that,
# Polars' are newer. No code can make two Unicode versions agree, so they are left out (and so
# are code points Python 3.11 does not know).
VERSION_SKEW = {"\u10fc", "\ua7f2", "\ua7f3", "\ua7f4", "\uab69"}
assigned = st.characters(exclude_categories=("Cs", "Cn"), exclude_characters="".join(VERSION_SKEW))
exotic_token = st.one_of(
    st.sampled_from(WORDS + EXOTIC),
    st.lists(
        st.sampled_from(EXOTIC + list(string.ascii_letters + string.digits + "_/.,(")),
        min_size=1,
        max_size=5,
    ).map("".join),
    st.text(alphabet=assigned, min_size=1, max_size=4),
)
exotic_query = st.tuples(
    st.lists(exotic_token, min_size=1, max_size=6),
    st.lists(st.sampled_from(SPACES), min_size=6, max_size=6),
).map(lambda parts: "".join(t + s for t, s in zip(*parts, strict=False)).strip(" "))
EXOTIC_VOCAB = VOCAB | {"straße", "ǆx", "σας", "ⅻ", "ªb", "x"}


@settings(max_examples=120, deadline=None)
@given(st.lists(exotic_query, min_size=1, max_size=20), st.booleans())
def test_vectorised_rules_match_python_on_exotic_unicode(
    queries: list[str], with_vocab: bool
) -> None:
    # The reference is the snippet's stratum() run by Python's re and str methods, with the
    # documented deviations (original spelling, punctuation stripped for rules 2 and 3, the
    # first token and "I" not entities), applied to the same collapsed spelling as the log gives.
    vocab = EXOTIC_VOCAB if with_vocab else None
    spellings = [" ".join(q.split()) for q in queries]
    got = classify_frame(pl.Series(queries), vocab).to_list()
    assert got == [reference(s, vocab) for s in spellings]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # Python's \w has no combining marks: "e\u0301_x" has no word run with an inner "_" ...
        ("e\u0301_x", "short_keyword"),
        # ... so to Python "abCd" starts a word run after the mark: a camelCase identifier.
        ("x\u0301abCd", "exact_identifier"),
        # Superscript two is a word character to Python (a digit), not to Rust's \w.
        ("²_x", "exact_identifier"),
        # Roman numeral twelve is uppercase to Python: "Ⅻ" is a title-cased token.
        ("how do Ⅻ Ⅷ work now", "multi_entity"),
        # U+001F separates tokens for Python's split(): four tokens, not three.
        ("which\x1fregions covered here", "paraphrase"),
    ],
)
def test_exotic_unicode_cases_found_by_the_property_test(query: str, expected: str) -> None:
    assert reference(" ".join(query.split()), None) == expected  # the reference agrees
    assert classify_one(query, None) == expected


# Empty and whitespace-only spellings, and very long ones: hundreds of tokens, tokens thousands of
# characters long (a pasted stack trace or a URL), with digits, punctuation and exotic Unicode.
long_token = st.one_of(
    exotic_token,
    st.text(alphabet=string.ascii_letters + string.digits + "_/.,()'\"!?", min_size=200),
    st.sampled_from(WORDS).map(lambda w: w * 500),
)
long_query = st.one_of(
    st.just(""),
    st.lists(st.sampled_from(SPACES), min_size=1, max_size=4).map("".join),
    st.lists(long_token, min_size=1, max_size=300).map(" ".join),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(long_query, min_size=1, max_size=8), st.booleans())
def test_vectorised_rules_match_python_on_empty_and_very_long_queries(
    queries: list[str], with_vocab: bool
) -> None:
    vocab = EXOTIC_VOCAB if with_vocab else None
    got = classify_frame(pl.Series(queries), vocab).to_list()
    assert got == [reference(" ".join(q.split()), vocab) for q in queries]


@settings(max_examples=60, deadline=None)
@given(st.lists(exotic_query, min_size=1, max_size=20), st.booleans())
def test_rules_given_the_lowercase_forms_answer_as_without(
    queries: list[str], with_vocab: bool
) -> None:
    # A log's labeller hands the rules its normal forms (the spellings lowercased) to save a
    # lowercasing pass; the strata must be those the rules find on their own.
    vocab = EXOTIC_VOCAB if with_vocab else None
    spellings = pl.Series([" ".join(q.split()) for q in queries])
    given_lower = classify_frame(
        spellings, vocab, collapsed=True, lowered=spellings.str.to_lowercase()
    )
    assert given_lower.to_list() == [reference(s, vocab) for s in spellings.to_list()]
