"""bench/speed_table.py's rows measured by other scripts: a missing, failing, hanging or
unreadable script gives a "not measured" line with the reason (the table goes on), and each
parser reads the figures its script prints (the lines below are those scripts' print formats)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))

import _speed_rows  # noqa: E402
from _speed_measure import Line, NotMeasured, run_once  # noqa: E402
from _speed_rows import EXTERNAL, External, measure_external  # noqa: E402


def entry_for(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, body: str | None) -> str:
    """A registry entry whose script is ``body`` (None: no script at all)."""
    monkeypatch.setattr(_speed_rows, "BENCH", tmp_path)
    if body is not None:
        (tmp_path / "fake.py").write_text(body, encoding="utf-8")
    fake = External(
        "a fake row", "fake.py", lambda quick, repeats, folder: [],
        lambda text, case: _speed_rows._serve(case, text), timeout=30,
    )  # fmt: skip
    monkeypatch.setitem(EXTERNAL, "fake", fake)
    return "fake"


def only_line(lines: list[Line]) -> Line:
    assert len(lines) == 1
    return lines[0]


def test_a_missing_script(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    line = only_line(measure_external(entry_for(monkeypatch, tmp_path, None), True, 1, tmp_path))
    assert line.verdict() == "not measured"
    assert "fake.py is missing" in line.note


def test_a_failing_script(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    body = "import sys\nprint('starting', file=sys.stderr)\nraise SystemExit('no pool here')\n"
    line = only_line(measure_external(entry_for(monkeypatch, tmp_path, body), True, 1, tmp_path))
    assert line.verdict() == "not measured"
    assert "exited 1" in line.note and "no pool here" in line.note


def test_output_the_parser_does_not_know(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    body = "print('| judging screen | to first frame |')\n"
    line = only_line(measure_external(entry_for(monkeypatch, tmp_path, body), True, 1, tmp_path))
    assert line.verdict() == "not measured"
    assert "terminal row" in line.note


def test_a_script_that_hangs_is_stopped(tmp_path: Path) -> None:
    with pytest.raises(NotMeasured, match="still running"):
        run_once([sys.executable, "-c", "import time; time.sleep(600)"], timeout=0.5)


def test_serve_figures(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    body = (
        "print('| judging screen | to first frame, wall s | CPU s | peak RSS MB |')\n"
        "print('|---|---|---|---|')\n"
        "print('| terminal | 0.80 | 0.70 | 90 |')\n"
        "print('| web | 1.60 | 0.84 | 95 |')\n"
    )
    wall, cpu = measure_external(entry_for(monkeypatch, tmp_path, body), True, 1, tmp_path)
    assert wall.ratio == pytest.approx(2.0) and wall.goal == 1.2 and wall.verdict() == "MISS"
    assert cpu.ratio == pytest.approx(1.2) and cpu.verdict() == "-"


def test_classify_figures() -> None:
    text = (
        f"\n{'process':<18} {'CPU s':>8} {'MB/CPU s':>9} {'peak RSS MB':>12} {'wall s':>8}\n"
        f"{'goldset classify':<18} {39.6:>8.1f} {2:>9.0f} {1900:>12.0f} {50.0:>8.1f}\n"
        f"{'polars scan':<18} {1.0:>8.1f} {60:>9.0f} {300:>12.0f} {2.0:>8.1f}\n"
        f"{'scan + group_by':<18} {2.3:>8.1f} {26:>9.0f} {763:>12.0f} {3.0:>8.1f}\n"
    )
    cpu, peak = EXTERNAL["classify-6m"].parse(text, "classify")
    assert cpu.ratio == pytest.approx(39.6 / 2.3) and cpu.verdict() == "MISS"
    assert peak.ratio == 1900 and peak.goal == 1024 and peak.verdict() == "MISS"


def test_keys_figures() -> None:
    text = (
        f"  {'every key':<50}{2000:>6}{24.0:>9.2f}{74.0:>9.2f}{90.0:>9.2f}\n"
        "  child CPU per key (user+sys, all threads, first key to last): 13.40 ms (whole session"
        " incl. open / keys: 20.00 ms)\n"
    )
    p99, cpu = EXTERNAL["keys"].parse(text, "keys")
    assert p99.ratio == 74.0 and p99.verdict() == "MISS"
    assert cpu.ratio is None and cpu.verdict() == "not measured"  # no minimal app printed
    p99, cpu = EXTERNAL["keys"].parse(text + "  minimal Textual app: 6.70 ms CPU a key\n", "keys")
    assert cpu.ratio == pytest.approx(2.0) and cpu.verdict() == "PASS"


def test_documents_and_open_pool_figures() -> None:
    text = (
        f"{'neardup.groups, 1.2 MB text (x2) + short':<44} median {163.3:8.1f} ms   max"
        f" {170.0:8.1f} ms\n"
        f"{'judging screen: j onto 1 MB text, k off it':<44} median {12.0:8.1f} ms   max"
        f" {40.0:8.1f} ms\n"
    )
    neardup, screen = EXTERNAL["long-documents"].parse(text, "long documents")
    assert neardup.goal is None and screen.goal == 20.0
    assert screen.ratio == 12.0 and screen.verdict() == "PASS"
    rows = (
        f"{'parquet':<8} {'pl.read_parquet (floor)':<28} {4.5:>8.2f} {1.0:>8.2f} {627:>8.0f}"
        f" {80:>8.0f}\n"
        f"{'parquet':<8} {'goldset load_pool':<28} {12.0:>8.2f} {2.67:>8.2f} {901:>8.0f}"
        f" {80:>8.0f}\n"
    )
    seconds, memory = EXTERNAL["open-pool"].parse(rows, "open")
    assert seconds.ratio == pytest.approx(12.0 / 4.5) and memory.ratio == pytest.approx(901 / 627)
