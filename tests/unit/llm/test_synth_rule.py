"""The synthetic-query prompt and the rule that reads a model's answer, case by case (no server):
what the built-in prompt asks for, how a line becomes a query, what is dropped and what is
refused; and near-duplicates across documents dropped at the pool's threshold."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui.app.synth_output import collect_queries, query_id
from goldset_tui.errors import InputError
from goldset_tui.machine.synth_prompt import (
    BUILT_IN,
    DEFAULT_PROMPT,
    load_synth_prompt,
    parse_queries,
)
from goldset_tui.pooling.neardup import THRESHOLD


def test_the_built_in_prompt_asks_for_searchers_who_have_not_seen_the_document() -> None:
    prompt = load_synth_prompt(None)
    assert prompt.source == BUILT_IN and prompt.template == DEFAULT_PROMPT
    text = prompt.render(document="The body {n} {title}.", title="json.loads", n=4)
    assert "have NOT seen this document" in text
    assert "their own words" in text and "Do not copy phrases" in text
    assert "Write 4 search queries" in text
    assert "one per line" in text
    assert "Title: json.loads" in text
    # One pass: placeholders inside the document are the document's own text.
    assert "The body {n} {title}." in text


def test_a_prompt_file_needs_its_document_placeholder(tmp_path: Path) -> None:
    bad = tmp_path / "p.txt"
    bad.write_text("Write {n} queries.", encoding="utf-8")
    with pytest.raises(InputError, match=r"no \{document\}"):
        load_synth_prompt(bad)
    bad.write_bytes(b"\xff{document}")
    with pytest.raises(InputError, match="not UTF-8"):
        load_synth_prompt(bad)
    good = tmp_path / "g.txt"
    good.write_text("Queries for {document}", encoding="utf-8")
    loaded = load_synth_prompt(good)
    assert loaded.sha256 != load_synth_prompt(None).sha256 and loaded.source.endswith("g.txt")


@pytest.mark.parametrize(
    ("answer", "queries"),
    [
        ("json loads\nparse json string\n", ["json loads", "parse json string"]),
        # list marks followed by a space, as models number lines whatever they are told
        (
            "1. a b\n2) c d\n(3) e f\n- g h\n* i j\n• k l",
            ["a b", "c d", "e f", "g h", "i j", "k l"],
        ),
        ("Q1: a b\nQuery 2: c d", ["a b", "c d"]),
        # a version number and an option keep their first characters
        ("3.11 what changed\n-v flag meaning", ["3.11 what changed", "-v flag meaning"]),
        # quotes of every usual kind, nested in a list mark
        ("1. \"a b\"\n2. “c d”\n3. 'e f'\n4. `g h`", ["a b", "c d", "e f", "g h"]),
        # Windows line ends, spaces inside collapsed
        ("a   b\r\nc d\r\n", ["a b", "c d"]),
        # an introduction ending in a colon is not a query
        ("Here are three queries:\n\na b\nc d", ["a b", "c d"]),
        # a repeat (case and spacing aside) is dropped
        ("a b\nA  B\nc d", ["a b", "c d"]),
        # more than asked: the first n
        ("a\nb\nc\nd\ne", ["a", "b", "c"]),
        # a question is a query; a long sentence ending in a full stop is prose
        (
            "how do i stop this?\nThese queries cover the main uses of the function in practice.",
            ["how do i stop this?"],
        ),
    ],
)
def test_lines_become_queries(answer: str, queries: list[str]) -> None:
    parsed = parse_queries(answer, 3 if "\ne" in answer else 10)
    assert parsed.queries == queries and parsed.refusal is None


def test_dropped_lines_are_counted() -> None:
    parsed = parse_queries("Here they are:\na b\na b\nc d\ne f", 2)
    assert parsed.queries == ["a b", "c d"]
    assert parsed.dropped == 3  # the introduction, the repeat, the one over n


@pytest.mark.parametrize(
    ("answer", "refusal"),
    [
        ("", "empty answer"),
        ("  \n\n \t", "empty answer"),
        (
            "I'm sorry, but I cannot write search queries for a document that holds no text.",
            "no queries in the answer (prose only)",
        ),
        ("Here are some queries:", "no queries in the answer (prose only)"),
        ('1. ""\n2. -', "no queries in the answer (prose only)"),
        (" ".join(["word"] * 40), "no queries in the answer (prose only)"),
    ],
)
def test_an_answer_with_no_query_is_refused(answer: str, refusal: str) -> None:
    parsed = parse_queries(answer, 3)
    assert parsed.queries == [] and parsed.refusal == refusal


def test_near_duplicates_across_documents_are_dropped_the_first_kept() -> None:
    words = "how do i read a json file from disk in python"
    answers = [
        ("d1", f"{words}\nunique one"),
        ("d2", f"{words.upper()}!\nanother unique"),  # the same words: dropped
        ("d3", ""),  # refused, counted
        ("d4", "Here is one:\nunique one"),  # exact repeat of d1's: dropped
    ]
    collected = collect_queries(answers, 3)
    frame = collected.frame
    assert frame["doc_id"].to_list() == ["d1", "d1", "d2"]
    assert frame["query"].to_list() == [words, "unique one", "another unique"]
    assert set(frame["origin"]) == {"synthetic"}
    assert frame["query_id"][0] == query_id("d1", words)
    assert collected.near_duplicates == 2
    assert collected.refusals == {"empty answer": 1}
    assert collected.lines_dropped == 1


def test_the_threshold_is_the_pools_and_a_lower_one_drops_more() -> None:
    base = "alpha beta gamma delta epsilon zeta eta theta iota kappa"
    near = base + " lambda"  # 6 of 7 shingles shared: Jaccard 6/7 < 0.9
    answers = [("d1", base), ("d2", near)]
    assert THRESHOLD == 0.9
    assert collect_queries(answers, 3).frame.height == 2
    assert collect_queries(answers, 3, threshold=0.8).frame.height == 1
