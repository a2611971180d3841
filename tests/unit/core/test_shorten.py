"""Ids shortened in the middle stay apart (issue 12: two documents both read ``pathlib#PurePath.…``
and ``LA091089-02…`` at 80x24)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldset_tui.ui.text.shorten import ELLIPSIS, cell_width, distinct_forms, middle


def test_ids_that_fit_are_shown_whole() -> None:
    assert distinct_forms(["d1", "doc-22"], 6) == {"d1": "d1", "doc-22": "doc-22"}


def test_the_issue_s_ids_no_longer_read_alike_at_their_column_width() -> None:
    # The top-k screen's column at 80x24 with three systems gave 18 cells to the id.
    ids = [
        "pathlib#PurePath.with_suffix",
        "pathlib#PurePath.with_stem",
        "LA091089-0212",
        "LA091089-0213",
    ]
    # What cutting at the end showed: pairs that read the same.
    ends = [x[:11] + ELLIPSIS for x in ids]
    assert ends[0] == ends[1] and ends[2] == ends[3]
    forms = distinct_forms(ids, 12)
    assert forms["LA091089-0212"] == "LA091…9-0212"  # balanced: 5 cells of head, 6 of tail
    assert forms["LA091089-0213"] == "LA091…9-0213"
    assert len(set(forms.values())) == 4
    assert all(cell_width(f) <= 12 for f in forms.values())
    assert forms["pathlib#PurePath.with_suffix"] == "pathl…suffix"
    assert forms["pathlib#PurePath.with_stem"] == "pathl…h_stem"


def test_a_collision_moves_the_whole_group_to_a_split_that_separates_it() -> None:
    # Same head, same last six characters: the balanced split reads alike for both.
    a, b = "report-2024-A-final.csv", "report-2024-B-final.csv"
    assert middle(a, 12) == middle(b, 12)
    forms = distinct_forms([a, b], 12)
    assert forms[a] != forms[b]
    # Both moved together, to one split: their forms differ in one character only.
    assert sum(x != y for x, y in zip(forms[a], forms[b], strict=True)) == 1
    assert "A" in forms[a] and "B" in forms[b]


def test_ids_alike_at_both_ends_show_a_window_from_the_middle() -> None:
    a = "x" * 10 + "A" + "y" * 10
    b = "x" * 10 + "B" + "y" * 10
    forms = distinct_forms([a, b], 8)
    assert forms[a] != forms[b] and forms[a].startswith(ELLIPSIS) and forms[a].endswith(ELLIPSIS)
    assert "A" in forms[a] and "B" in forms[b]


def test_ids_no_form_can_tell_apart_are_counted() -> None:
    ids = ["a" * 20, "a" * 21, "a" * 22]
    forms = distinct_forms(ids, 6)
    assert len(set(forms.values())) == 3
    assert all(cell_width(f) <= 6 for f in forms.values())
    assert sum(f.endswith(("~2", "~3")) for f in forms.values()) == 2


def test_a_short_id_that_looks_like_a_form_is_not_taken_by_a_long_one() -> None:
    long = "abcdefghij-zz"
    looks = middle(long, 6)
    forms = distinct_forms([looks, long], 6)
    assert forms[looks] == looks and forms[long] != looks


def test_wide_characters_count_two_cells() -> None:
    forms = distinct_forms(["文書文書文書文書-1", "文書文書文書文書-2"], 9)
    assert all(cell_width(f) <= 9 for f in forms.values())
    assert len(set(forms.values())) == 2


def test_a_width_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        distinct_forms(["x"], 0)


IDS = st.lists(
    st.text(
        alphabet=st.one_of(st.sampled_from("aAb01-_#./…"), st.characters(codec="utf-8")),
        min_size=1,
        max_size=40,
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=400, derandomize=True, deadline=None)
@given(IDS, st.integers(min_value=4, max_value=40))
def test_distinct_ids_stay_distinct_and_fit(ids: list[str], width: int) -> None:
    forms = distinct_forms(ids, width)
    assert set(forms) == set(ids)
    assert all(cell_width(f) <= width for f in forms.values())
    assert len(set(forms.values())) == len(set(ids))
    # An id that fits is never altered; one that does not is cut in the middle with an ellipsis.
    for x, f in forms.items():
        assert (f == x) if cell_width(x) <= width else (ELLIPSIS in f)
