"""The run reader's faster pieces against the simple ones they replace, on random inputs.

- ``file_slices``: the slices put the file back together exactly, each ends at a line break
  (but the last, or a block without one), none is larger than a slice;
- the duplicate check looks within each stretch of consecutive lines of one query, and at
  every line's pair only when a query is met in two places: it still doubts a run exactly when
  some (query, document) pair is on two lines.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from goldset_tui.io import run_scan
from goldset_tui.io.trec import read_run


@settings(max_examples=200, deadline=None)
@given(
    data=st.lists(st.sampled_from([b"a", b" ", b"\n", b"bb", b"\r\n"]), min_size=1, max_size=80),
    size=st.integers(1, 12),
)
def test_slices_are_the_file_in_whole_lines(tmp_path_factory, data, size):
    path: Path = tmp_path_factory.mktemp("slices") / "run.txt"
    text = b"".join(data)
    path.write_bytes(text)
    old = run_scan.SLICE_BYTES
    run_scan.SLICE_BYTES = size
    try:
        pieces = list(run_scan.file_slices(path))
    finally:
        run_scan.SLICE_BYTES = old
    assert b"".join(pieces) == text
    assert all(0 < len(p) <= size for p in pieces)
    for piece in pieces[:-1]:
        assert piece.endswith(b"\n") or (len(piece) == size and b"\n" not in piece)
    # A line break inside a block always cuts it there: no slice but the last could end later.
    for piece in pieces[:-1]:
        if piece.endswith(b"\n"):
            continue
        assert b"\n" not in piece


# The duplicate check. The old one hashed every line's (query, document) pair and sorted the
# hashes; the new one checks each stretch of consecutive lines of one query, and falls back on
# the old check only when a query is met in two places. Runs drawn here are grouped by query
# or not, with documents repeated within a query (next to each other or far apart), across
# slice boundaries (slices of 40-200 bytes, lines of about 20), or in another stretch of
# the same query; and tied scores.

QUERIES = ["q1", "q2", "q10", "é"]
DOCS = [f"d{i}" for i in range(12)]


@st.composite
def runs(draw):
    lines = []
    for query in draw(st.lists(st.sampled_from(QUERIES), min_size=1, max_size=4)):
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10))
        lines += [(query, doc, draw(st.sampled_from(["0.5", "1", "2.25"]))) for doc in docs]
    if draw(st.booleans()):
        lines = draw(st.permutations(lines))
    return lines


def old_repeated(lines) -> bool:
    """The old check, plainly: some (query, document) pair on two lines."""
    pairs = [(q, d) for q, d, _ in lines]
    return len(set(pairs)) != len(pairs)


@settings(max_examples=400, deadline=None)
@given(lines=runs(), size=st.integers(40, 200), depth=st.sampled_from([None, 1, 3]))
def test_a_repeated_pair_anywhere_is_doubted_and_only_then(tmp_path_factory, lines, size, depth):
    path: Path = tmp_path_factory.mktemp("dups") / "run.txt"
    path.write_text("".join(f"{q} Q0 {d} 0 {s} t\n" for q, d, s in lines), encoding="utf-8")
    old = run_scan.SLICE_BYTES
    run_scan.SLICE_BYTES = size
    try:
        try:
            got = run_scan._scan(path, depth, None)
        except run_scan.Doubt:
            got = None
    finally:
        run_scan.SLICE_BYTES = old
    assert (got is None) == old_repeated(lines)
    if got is not None:
        expected = read_run(path, tag=False, order=False, depth=depth)
        assert got.rows() == expected.rows()
