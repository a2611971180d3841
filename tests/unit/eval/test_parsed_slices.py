"""parsed_slices parses the next slice on a helper thread: the frames, their order and the first
error must be exactly those of parsing the slices one after the other."""

from __future__ import annotations

from collections.abc import Iterator

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from goldset_tui.io.run_scan import Doubt, parse_slice, parsed_slices, split_slices


def run_text(queries: int, docs: int, separator: str = " ") -> bytes:
    lines = [
        separator.join([f"q{q}", "Q0", f"d{q}-{d}", str(d + 1), f"{1 - d / docs:.3f}", "t"])
        for q in range(queries)
        for d in range(docs)
    ]
    return ("\n".join(lines) + "\n").encode()


def serial(pieces: list[bytes]) -> list[pl.DataFrame]:
    frames, separator = [], None
    for piece in pieces:
        frame, separator = parse_slice(piece, separator)
        frames.append(frame)
    return frames


def slices(data: bytes, size: int, monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    from goldset_tui.io import run_scan

    monkeypatch.setattr(run_scan, "SLICE_BYTES", size)
    return list(split_slices(data))


@pytest.mark.parametrize("separator", [" ", "\t"])
def test_same_frames_in_the_same_order(separator: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pieces = slices(run_text(30, 20, separator), 256, monkeypatch)
    assert len(pieces) > 20
    got = list(parsed_slices(pieces))
    expected = serial(pieces)
    assert len(got) == len(expected)
    for a, b in zip(got, expected, strict=True):
        assert_frame_equal(a, b)


def test_one_slice_and_none() -> None:
    data = run_text(2, 3)
    (only,) = parsed_slices([data])
    assert_frame_equal(only, serial([data])[0])
    assert list(parsed_slices([])) == []


def test_a_bad_slice_is_raised_after_the_good_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    pieces = slices(run_text(10, 20), 256, monkeypatch)
    bad = 5
    pieces[bad] = pieces[bad].replace(b" Q0 ", b" Q0  ", 1)  # an empty field: read_run decides
    seen = []
    with pytest.raises(Doubt):
        for frame in parsed_slices(pieces):
            seen.append(frame)
    assert len(seen) == bad
    for a, b in zip(seen, serial(pieces[:bad]), strict=True):
        assert_frame_equal(a, b)


def test_an_error_of_the_source_comes_through(monkeypatch: pytest.MonkeyPatch) -> None:
    pieces = slices(run_text(10, 20), 256, monkeypatch)

    def failing() -> Iterator[bytes]:
        yield from pieces[:3]
        raise OSError("the disk went away")

    with pytest.raises(OSError, match="disk went away"):
        list(parsed_slices(failing()))


def test_the_consumer_stopping_early_leaves_nothing_running(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pieces = slices(run_text(10, 20), 256, monkeypatch)
    read = []

    def counted() -> Iterator[bytes]:
        for piece in pieces:
            read.append(piece)
            yield piece

    frames = parsed_slices(counted())
    next(frames)
    frames.close()  # the helper finishes its one slice ahead and stops
    assert len(read) == 2
