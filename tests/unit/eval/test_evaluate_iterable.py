"""evaluate_wide takes any iterable of measures: a generator is read once, not twice (mypy found
that the second pass saw an empty generator and the frame came back without any measure)."""

from __future__ import annotations

import polars as pl

from goldset_tui.eval.measures import parse_measures
from goldset_tui.eval.metrics import evaluate_wide

QRELS = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "grade": [1, 0]})
RUN = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["b", "a"], "score": [2.0, 1.0]})


def test_a_generator_of_names_gives_the_same_frame_as_a_list() -> None:
    names = ["P@1", "RR"]
    expected = evaluate_wide(QRELS, RUN, names)
    assert expected.columns == ["query_id", "P@1", "RR"]
    assert evaluate_wide(QRELS, RUN, (n for n in names)).equals(expected)


def test_a_generator_of_parsed_measures_too() -> None:
    measures = parse_measures(["P@1", "RR"])
    expected = evaluate_wide(QRELS, RUN, measures)
    assert evaluate_wide(QRELS, RUN, iter(measures)).equals(expected)
    assert expected.get_column("RR").to_list() == [0.5]
