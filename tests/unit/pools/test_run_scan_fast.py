"""The run reader's faster pieces against the simple ones they replace, on random inputs.

- ``file_slices`` maps the file instead of reading it: the slices still put the file back
  together exactly, each ends at a line break (but the last, or a block without one), none is
  larger than a slice.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from goldset_tui.io import run_scan


@settings(max_examples=200, deadline=None)
@given(
    data=st.lists(st.sampled_from([b"a", b" ", b"\n", b"bb", b"\r\n"]), min_size=1, max_size=80),
    size=st.integers(1, 12),
)
def test_mapped_slices_are_the_file_in_whole_lines(tmp_path_factory, data, size):
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
