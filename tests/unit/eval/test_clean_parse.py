"""The cheap parse of clean run text (io/trec.py's ``_parse_clean``) must change nothing: on any
text, parse_separated gives what its full field check gives, and a bad line anywhere in a large
run (read in slices by scan_run and by the lean reader of evaluation) is named as read_run names it.

The cheap parse reads only the kept fields and the last one, and trusts "no two separators in a
row" for the fields it skips; these tests put every kind of bad line at the start, in the middle
and at the end of a file read in many slices."""

from __future__ import annotations

import random
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from goldset_tui.cli import main
from goldset_tui.errors import InputError
from goldset_tui.eval import small
from goldset_tui.io import run_scan, trec
from goldset_tui.io.run_lean import Doubt, read_run_lean
from goldset_tui.io.run_scan import scan_run
from goldset_tui.io.sources import open_source
from goldset_tui.io.trec import RUN_FIELDS, parse_separated, read_qrels, read_run

KEEP = run_scan._KEEP


def good_lines(seed: int, n: int = 60) -> list[bytes]:
    rng = random.Random(seed)
    lines = [
        f"q{rng.randint(1, 5)} Q0 d{i} {i} {round(rng.uniform(-3, 3), 2)} tag".encode()
        for i in range(n)
    ]
    rng.shuffle(lines)
    return lines


BAD_LINES = {
    "empty Q0": b"q1  d900 1 0.5 tag",
    "empty rank": b"q1 Q0 d900  0.5 tag",
    "trailing separator": b"q1 Q0 d900 1 0.5 tag ",
    "empty tag": b"q1 Q0 d900 1 0.5 ",
    "five fields": b"q1 Q0 d900 1 0.5",
    "seven fields": b"q1 Q0 d900 1 0.5 tag more",
    "leading separator": b" q1 Q0 d900 1 0.5 tag",
    "Q0 not UTF-8": b"q1 Q\xff d900 1 0.5 tag",
    "tag not UTF-8": b"q1 Q0 d900 1 0.5 t\xffg",
    "score not a number": b"q1 Q0 d900 1 high tag",
    "duplicate": b"q1 Q0 d900 1 0.5 tag\nq1 Q0 d900 2 0.4 tag",
    "nan": b"q1 Q0 d900 1 nan tag",
    "blank line": b"",
    "only spaces": b"   ",
}
# Lines that are not wrong, but that the cheap parse must leave to the full one.
ODD_LINES = {
    "comment line": b"# a comment  with two spaces",
    "hash in an id": b"q1 Q0 d#900 1 0.5 tag",
    "not ASCII but UTF-8": "q1 Q0 d900é 1 0.5 tag".encode(),
    "CRLF": b"q1 Q0 d900 1 0.5 tag\r",
}
WHERE = ["start", "middle", "end"]


def with_line(line: bytes, where: str, seed: int = 3) -> bytes:
    lines = good_lines(seed)
    at = {"start": 0, "middle": len(lines) // 2, "end": len(lines)}[where]
    return b"\n".join([*lines[:at], line, *lines[at:]]) + b"\n"


def full_only(source: bytes, separator: str) -> pl.DataFrame | None:
    """parse_separated with every field read and checked: what the cheap parse must equal."""
    clean = trec._parse_clean
    try:
        trec._parse_clean = lambda *args: None  # type: ignore[assignment]
        return parse_separated(source, RUN_FIELDS, KEEP, separator)
    finally:
        trec._parse_clean = clean


@pytest.mark.parametrize("case", [*BAD_LINES, *ODD_LINES])
@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("separator", [" ", "\t"])
def test_parse_separated_gives_what_the_full_check_gives(
    case: str, where: str, separator: str
) -> None:
    line = {**BAD_LINES, **ODD_LINES}[case]
    text = with_line(line, where).replace(b" ", separator.encode())
    expected = full_only(text, separator)
    got = parse_separated(text, RUN_FIELDS, KEEP, separator)
    if expected is None:
        assert got is None
    else:
        assert got is not None
        assert_frame_equal(got, expected)


def test_clean_text_takes_the_cheap_parse() -> None:
    # Without this, the test above would pass with a cheap parse that is never used.
    text = b"\n".join(good_lines(1)) + b"\n"
    cheap = trec._parse_clean(text, RUN_FIELDS, KEEP, " ")
    assert cheap is not None and cheap.height == 60
    assert_frame_equal(cheap, full_only(text, " "))
    for line in BAD_LINES.values():
        assert trec._parse_clean(with_line(line, "middle"), RUN_FIELDS, KEEP, " ") is None or (
            full_only(with_line(line, "middle"), " ") is not None
        )


@pytest.fixture
def small_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_scan, "SLICE_BYTES", 200)  # a 1.5 kB run is read in 8 slices
    monkeypatch.setattr(run_scan, "_MERGE_ROWS", 20)


def same_error(expected: InputError, got: InputError) -> None:
    assert (got.path, got.line, got.row, got.column, got.message) == (
        expected.path,
        expected.line,
        expected.row,
        expected.column,
        expected.message,
    )


@pytest.mark.parametrize("case", [*BAD_LINES, *ODD_LINES])
@pytest.mark.parametrize("where", WHERE)
def test_a_bad_line_anywhere_is_named_as_read_run_names_it(
    tmp_path: Path, small_slices: None, case: str, where: str
) -> None:
    path = tmp_path / "run.txt"
    path.write_bytes(with_line({**BAD_LINES, **ODD_LINES}[case], where))
    qrels = read_qrels(open_source_bytes(b"q1 0 d900 1\nq2 0 d3 1\n"))
    for depth in (None, 2):
        try:
            expected = read_run(path, tag=False, order=False, depth=depth)
        except InputError as exc:
            with pytest.raises(InputError) as info:
                scan_run(path, depth=depth)
            same_error(exc, info.value)
            with pytest.raises(Doubt):  # the lean reader leaves it to read_run
                read_run_lean(open_source(path), qrels)
        else:
            assert_frame_equal(scan_run(path, depth=depth), expected)


def open_source_bytes(data: bytes):  # a Source
    from goldset_tui.io.sources import Source

    return Source("qrels", data)


@pytest.mark.parametrize("where", WHERE)
def test_evaluation_of_a_large_run_names_the_bad_line(
    tmp_path: Path, small_slices: None, monkeypatch: pytest.MonkeyPatch, capsys, where: str
) -> None:
    monkeypatch.setattr(small, "SMALL_INPUT_BYTES", 0)  # as if large: Polars, lean reading
    run = tmp_path / "run.txt"
    run.write_bytes(with_line(BAD_LINES["empty Q0"], where))
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    line = 1 + {"start": 0, "middle": 30, "end": 60}[where]
    assert main(["eval", str(tmp_path / "qrels.txt"), str(run), "-m", "AP"]) == 2
    err = capsys.readouterr().err
    assert f"{run}:{line}" in err and "expected 6 whitespace-separated fields" in err
