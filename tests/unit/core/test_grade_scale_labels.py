"""Each grade of a scale carries the label of its place on the scale, whatever the scale's first
grade: a labeller pressing 1 on a 1-5 scale must read the lowest label, not the 0-3 scale's label
of grade 1. Written out by hand, grade by grade, for 0-3, 1-5 and 0-9.

Before, ``GradeScale.from_range`` looked each grade up by its number in the 0-3 labels, so on 1-5
grade 1 read "related", grade 3 "perfectly relevant" (the middle of the scale) and 4 and 5 bare
numbers; ``goldset agreement --scale 1-5`` and ``goldset check --grades 1-5`` made their scale
that way, while a store made with ``--scale 1-5`` (judge, import) was labelled by place."""

from __future__ import annotations

import pytest

from goldset_tui.agreement.sources import parse_scale
from goldset_tui.model import GradeScale, relevance_scale

ZERO_TO_THREE = {
    0: "not relevant",
    1: "related",
    2: "highly relevant",
    3: "perfectly relevant",
}
ONE_TO_FIVE = {
    1: "not relevant",  # the lowest grade: what a labeller pressing 1 must read
    2: "related",
    3: "relevant",
    4: "highly relevant",
    5: "perfectly relevant",
}
ZERO_TO_NINE = {
    0: "not relevant",
    **{g: str(g) for g in range(1, 9)},  # no word for the grades between: their number
    9: "perfectly relevant",
}


@pytest.mark.parametrize(
    ("lo", "hi", "expected"),
    [(0, 3, ZERO_TO_THREE), (1, 5, ONE_TO_FIVE), (0, 9, ZERO_TO_NINE)],
    ids=["0-3", "1-5", "0-9"],
)
def test_each_grade_has_the_label_of_its_place(lo: int, hi: int, expected: dict[int, str]) -> None:
    scale = GradeScale.from_range(lo, hi)
    assert scale.labels == expected
    assert scale.labels[scale.min] == "not relevant"
    assert scale.labels[scale.max] == "perfectly relevant"
    # The scale a store is made with (judge/import --scale) and the one agreement reads from
    # --scale are the same scale, labels included.
    assert relevance_scale(lo, hi) == scale
    assert parse_scale(f"{lo}-{hi}") == scale


def test_a_scale_reaching_below_zero_keeps_zero_as_not_relevant() -> None:
    # TREC's -1/-2 (junk, spam) sit below "not relevant": they keep their number, and 0-2 keep
    # the labels of their place on 0-2.
    assert GradeScale.from_range(-1, 2).labels == {
        -1: "-1",
        0: "not relevant",
        1: "related",
        2: "highly relevant",
    }


def test_one_grade_and_no_grade() -> None:
    assert GradeScale.from_range(3, 3).grades == [3]
    with pytest.raises(ValueError):
        GradeScale.from_range(5, 3)
