"""Which machine-labelled pairs go to a person (`goldset validate`), on a case worked by hand.

Three systems, P@1, four queries in two strata; each run returns one document per query:

    query stratum   A    B    C     machine labels (grade, confidence)
    q1    s1        d1   d2   d2    d1 1 .9   d2 0 .3
    q2    s1        e1   e2   e1    e1 0 .5   e2 1 .95
    q3    s2        f1   f1   f2    f1 1 .99  f2 1 .7
    q4    s2        g1   g2   g2    g1 1 .8   g2 0 .4

Means under the machine (every query has a relevant label): A 3/4, B 2/4, C 1/4.
Moving one grade across the relevance line (1 -> 0, 0 -> 1) and re-averaging:
  d1 -> 0: q1 has no relevant label left and leaves the mean: A 2/3 B 2/3 C 1/3, A-B ties: 1 flip
  d2 -> 1: A 3/4 B 3/4 C 2/4: 1 flip (A-B)
  e1 -> 1: A 1 B 2/4 C 2/4: 1 flip (B-C)
  e2 -> 0: q2 leaves: A 1 B 1/3 C 1/3: 1 flip (B-C)
  f1 -> 0: A 2/4 B 1/4 C 1/4: 1 flip (B-C)
  f2 -> 0: A 3/4 B 2/4 C 0: none
  g1 -> 0: q4 leaves: A 2/3 B 2/3 C 1/3: 1 flip (A-B)
  g2 -> 1: A 3/4 B 3/4 C 2/4: 1 flip (A-B)
Within a stratum: flips first, then the lowest confidence:
  s1: d2 (.3) e1 (.5) d1 (.9) e2 (.95)      s2: g2 (.4) g1 (.8) f1 (.99) f2 (.7, no flip)
The strata take turns: d2 g2 e1 g1 d1 f1 e2 f2.
"""

from __future__ import annotations

import polars as pl

from goldset_tui.eval.metrics import mean_scores
from goldset_tui.machine.validation import choose_for_validation, flip_counts

TOP = {
    "A": {"q1": "d1", "q2": "e1", "q3": "f1", "q4": "g1"},
    "B": {"q1": "d2", "q2": "e2", "q3": "f1", "q4": "g2"},
    "C": {"q1": "d2", "q2": "e1", "q3": "f2", "q4": "g2"},
}
LABELS = pl.DataFrame(
    [
        ("q1", "d1", 1, 0.9),
        ("q1", "d2", 0, 0.3),
        ("q2", "e1", 0, 0.5),
        ("q2", "e2", 1, 0.95),
        ("q3", "f1", 1, 0.99),
        ("q3", "f2", 1, 0.7),
        ("q4", "g1", 1, 0.8),
        ("q4", "g2", 0, 0.4),
    ],
    schema=["query_id", "doc_id", "grade", "confidence"],
    orient="row",
)
STRATA = pl.DataFrame({"query_id": ["q1", "q2", "q3", "q4"], "stratum": ["s1", "s1", "s2", "s2"]})
FLIPS = {"d1": 1, "d2": 1, "e1": 1, "e2": 1, "f1": 1, "f2": 0, "g1": 1, "g2": 1}


def runs() -> dict[str, pl.DataFrame]:
    return {
        name: pl.DataFrame(
            [(q, d, 1.0, 1) for q, d in top.items()],
            schema={"query_id": pl.Utf8, "doc_id": pl.Utf8, "score": pl.Float64, "rank": pl.Int64},
            orient="row",
        )
        for name, top in TOP.items()
    }


def test_flip_counts_by_hand() -> None:
    got = flip_counts(LABELS, runs(), "P@1")
    assert dict(zip(got["doc_id"], got["flips"], strict=True)) == FLIPS


def test_flip_counts_against_re_evaluating_each_change() -> None:
    # the same question asked the slow way: change one grade, run goldset's own mean_scores
    def order_signs(qrels: pl.DataFrame) -> list[int]:
        m = {n: mean_scores(qrels, r, ["P@1"])["P@1"] for n, r in runs().items()}
        return [(m[x] > m[y]) - (m[x] < m[y]) for x, y in (("A", "B"), ("A", "C"), ("B", "C"))]

    base = order_signs(LABELS)
    for doc in LABELS["doc_id"]:
        changed = LABELS.with_columns(
            pl.when(pl.col("doc_id") == doc)
            .then(1 - (pl.col("grade") >= 1).cast(pl.Int64))
            .otherwise(pl.col("grade"))
            .alias("grade")
        )
        after = order_signs(changed)
        assert sum(a != b for a, b in zip(base, after, strict=True)) == FLIPS[doc], doc


def test_choice_by_hand() -> None:
    chosen = choose_for_validation(LABELS, 8, strata=STRATA, runs=runs(), measure="P@1")
    assert chosen["doc_id"].to_list() == ["d2", "g2", "e1", "g1", "d1", "f1", "e2", "f2"]
    five = choose_for_validation(LABELS, 5, strata=STRATA, runs=runs(), measure="P@1")
    assert five["doc_id"].to_list() == ["d2", "g2", "e1", "g1", "d1"]
    assert five["stratum"].to_list() == ["s1", "s2", "s1", "s2", "s1"]
    assert five["reason"][0] == "its grade decides the order of 1 pair(s) of systems"


def test_without_runs_confidence_and_strata_decide() -> None:
    chosen = choose_for_validation(LABELS, 3, strata=STRATA)
    assert chosen["doc_id"].to_list() == ["d2", "g2", "e1"]
    assert chosen["reason"][1] == "machine confidence 0.4"


def test_pairs_a_person_judged_are_left_out_and_a_small_stratum_gives_what_it_has() -> None:
    judged = pl.DataFrame({"query_id": ["q2", "q3", "q3"], "doc_id": ["e1", "f1", "f2"]})
    chosen = choose_for_validation(
        LABELS, 6, strata=STRATA, runs=runs(), measure="P@1", exclude=judged
    )
    # s2 has g1 and g2 left: after two turns s1 takes the rest of the budget
    assert chosen["doc_id"].to_list() == ["d2", "g2", "d1", "g1", "e2"]


def test_labels_without_confidence_or_strata() -> None:
    chosen = choose_for_validation(LABELS.drop("confidence"), 2)
    assert chosen["doc_id"].to_list() == ["d1", "d2"]  # nothing to rank by: id order
    assert chosen["stratum"].to_list() == ["(no stratum)"] * 2
    assert choose_for_validation(LABELS, 0).height == 0


# --- a 1-5 grading scale ---------------------------------------------------------------------
# The same case one grade up (0 -> 1, 1 -> 2) on a 1-5 scale, judged by P(rel=2)@1: grade 1 is the
# scale's "not relevant". The old "what if" moved every label of grade >= 1 to 0 (a grade the
# scale does not have): a non-relevant 1 stayed non-relevant at rel=2, so d2, e1 and g2 decided
# nothing. Now a relevant label (>= 2) goes to 1 and a non-relevant one (1) to 2.
SHIFTED = LABELS.with_columns(pl.col("grade") + 1)


def test_what_if_stays_on_a_1_to_5_scale() -> None:
    from goldset_tui.machine.validation import _what_if_qrels

    moved = _what_if_qrels(SHIFTED, 2)
    assert set(moved["grade"].to_list()) <= {1, 2, 3, 4, 5}
    changed = moved.filter(
        pl.col("query_id").str.split("\x1f").list.last() == pl.col("doc_id")
    ).sort("doc_id")
    # relevant (2) -> 1, not relevant (1) -> 2, written out per pair
    assert dict(zip(changed["doc_id"], changed["grade"], strict=True)) == {
        "d1": 1, "d2": 2, "e1": 2, "e2": 1, "f1": 1, "f2": 1, "g1": 1, "g2": 2,
    }  # fmt: skip


def test_flip_counts_on_a_1_to_5_scale_against_re_evaluating_each_change() -> None:
    measure = "P(rel=2)@1"

    def order_signs(qrels: pl.DataFrame) -> list[int]:
        m = {n: mean_scores(qrels, r, [measure])[measure] for n, r in runs().items()}
        return [(m[x] > m[y]) - (m[x] < m[y]) for x, y in (("A", "B"), ("A", "C"), ("B", "C"))]

    got = flip_counts(SHIFTED, runs(), measure, (1, 5))
    flips = dict(zip(got["doc_id"], got["flips"], strict=True))
    base = order_signs(SHIFTED)
    for doc, grade in zip(SHIFTED["doc_id"], SHIFTED["grade"], strict=True):
        other = 1 if grade >= 2 else 2  # the nearest grade across the line at 2
        after = order_signs(
            SHIFTED.with_columns(
                pl.when(pl.col("doc_id") == doc)
                .then(other)
                .otherwise(pl.col("grade"))
                .alias("grade")
            )
        )
        assert flips[doc] == sum(a != b for a, b in zip(base, after, strict=True)), doc
    assert flips["d2"] == flips["e1"] == flips["g2"] == 1  # the old what-if found 0 here


def test_a_line_with_no_grade_of_the_scale_below_it_is_refused() -> None:
    import pytest

    from goldset_tui.errors import InputError
    from goldset_tui.machine.validation import relevance_line

    assert relevance_line("nDCG@10", (0, 3)) == 1 and relevance_line("P(rel=2)@10", (1, 5)) == 2
    with pytest.raises(InputError, match=r"grades run 1-5 .* no grade of the scale is below"):
        relevance_line("nDCG@10", (1, 5))
    with pytest.raises(InputError, match="reaches that line"):
        relevance_line("P(rel=4)@10", (0, 3))
    with pytest.raises(InputError, match="below"):
        choose_for_validation(SHIFTED, 3, runs=runs(), measure="P@1", scale=(1, 5))
