"""The rule that reads a grade out of a model's answer (goldset_tui/machine/answer.py, repeated in
docs/agreement.md): each kind of answer the rule refuses is refused, with its reason, and a lone
number in prose is read only when it is the answer's one number. And the prompt: placeholders
filled once, a prompt file checked, the built-in prompt only on its own scale."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui.errors import InputError
from goldset_tui.machine.answer import RATIONALE_LIMIT, read_answer
from goldset_tui.machine.prompt import DEFAULT_PROMPT, load_prompt, prompt_digest
from goldset_tui.model import GradeScale, relevance_scale

SCALE = GradeScale()

READ = [
    ("Rationale: it answers.\nConfidence: 0.8\nFinal score: 2", 2),
    ("##final score: 3", 3),  # UMBRELA's own answer format
    ("**Final score:** 1", 1),
    ("Final Score: **3**.", 3),
    ("Final score: 2.0", 2),
    ("Grade = 0", 0),
    ("2", 2),
    (" 3.\n", 3),
    ("I would grade this passage 2.", 2),
    # Score lines decide, whatever numbers the prose holds.
    ("It covers 3 of the 4 points.\nFinal score: 2", 2),
    ("Final score: 1\nFinal score: 1", 1),  # said twice, the same
    ("The answer mentions utf8 and q2; it is a 1", 1),  # digits inside words are not numbers
    ("Confidence: 0.9\nIt is a 1", 1),  # the confidence line is not a number of the prose
]

REFUSED = [
    ("", "empty answer"),
    (" \n\t", "empty answer"),
    ("Final score: 7", "the grade 7 is off the scale 0-3"),
    ("Final score: -1", "the grade -1 is off the scale 0-3"),
    ("4", "the grade 4 is off the scale 0-3"),
    ("Final score: 2.5", "the grade '2.5' is not a whole number"),
    ("Final score: 2/3", "the grade '2/3' is not a whole number"),
    ("Final score: two", "the grade 'two' is not a whole number"),
    ("Final score:", "the grade '' is not a whole number"),
    ("Score: 1\nFinal score: 3", "two different grades (1, 3)"),
    ("It is a 2 or maybe a 3.", "several numbers and no score line (2, 3)"),
    ("Grade 2 on 0-3", "several numbers and no score line (2, 0, 3)"),
    ("Highly relevant.", "no grade in the answer"),
]


@pytest.mark.parametrize(("text", "grade"), READ)
def test_read(text: str, grade: int) -> None:
    answer = read_answer(text, SCALE)
    assert (answer.grade, answer.refusal) == (grade, None)


@pytest.mark.parametrize(("text", "why"), REFUSED)
def test_refused(text: str, why: str) -> None:
    answer = read_answer(text, SCALE)
    assert (answer.grade, answer.refusal) == (None, why)


def test_the_scale_is_the_stores() -> None:
    one_to_five = relevance_scale(1, 5)
    assert read_answer("Final score: 5", one_to_five).grade == 5
    assert read_answer("Final score: 0", one_to_five).refusal == "the grade 0 is off the scale 1-5"


@pytest.mark.parametrize(
    ("text", "confidence"),
    [
        ("Confidence: 0.75\nFinal score: 1", 0.75),
        ("confidence = 80%\nFinal score: 1", 0.8),
        ("**Confidence:** 1\nFinal score: 1", 1.0),
        ("Confidence: 1.5\nFinal score: 1", None),  # outside 0-1: empty, the grade stands
        ("Confidence: high\nFinal score: 1", None),
        ("Final score: 1", None),
    ],
)
def test_confidence(text: str, confidence: float | None) -> None:
    answer = read_answer(text, SCALE)
    assert answer.grade == 1 and answer.confidence == confidence


def test_rationale() -> None:
    text = "Rationale: the passage names\nthe exception.\nConfidence: 0.9\nFinal score: 3"
    assert read_answer(text, SCALE).rationale == "the passage names the exception."
    prose = "The passage is about   something else.\nFinal score: 0"
    assert read_answer(prose, SCALE).rationale == "The passage is about something else."
    long = "Rationale: " + "word " * 1000 + "\nFinal score: 1"
    assert len(read_answer(long, SCALE).rationale or "") == RATIONALE_LIMIT


def test_built_in_prompt_is_filled_once_and_recorded_by_its_digest() -> None:
    prompt = load_prompt(None, SCALE)
    assert prompt.sha256 == prompt_digest(DEFAULT_PROMPT) and prompt.source == "built-in"
    # A document that itself says "{query}" is not filled in a second time.
    text = prompt.render(query="json", passage="see {query} and {passage}", title="", scale=SCALE)
    assert "Query: json" in text and "see {query} and {passage}" in text


def test_built_in_prompt_only_on_its_scale() -> None:
    with pytest.raises(InputError, match="give --prompt FILE"):
        load_prompt(None, relevance_scale(1, 5))


def test_prompt_file(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_text(
        'Grade {lo}-{hi}. {"json": "kept"}\n{title}: {query} / {passage}', encoding="utf-8"
    )
    prompt = load_prompt(path, relevance_scale(1, 5))
    shown = prompt.render(query="q", passage="p", title="t", scale=relevance_scale(1, 5))
    assert shown == 'Grade 1-5. {"json": "kept"}\nt: q / p'
    assert prompt.sha256 == prompt_digest(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"", "the prompt is empty"),
        (b"only {query}", "no {passage}"),
        (b"nothing", "no {query} and no {passage}"),
        (b"\xff{query}{passage}", "not UTF-8"),
    ],
)
def test_a_bad_prompt_file_is_one_line(tmp_path: Path, content: bytes, why: str) -> None:
    path = tmp_path / "p.txt"
    path.write_bytes(content)
    with pytest.raises(InputError, match=why) as caught:
        load_prompt(path, SCALE)
    assert caught.value.path == path
