"""bench/speed_table.py's rows measured by other scripts: a missing, failing, hanging or
unreadable script gives a "not measured" line with the reason (the table goes on), and each
parser reads the figures its script prints (the lines below are those scripts' print formats)."""

from __future__ import annotations

import json
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
        "a fake row", "fake.py", lambda quick, repeats, folder, source: [],
        lambda text, case: _speed_rows._serve(case, text), _speed_rows._serve_json, timeout=30,
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


def test_json_lines_are_read_first() -> None:
    """The scripts' --json line (their table then goes to stderr), as they print it."""
    classify = {
        "bench": "log_scale",
        "processes": {
            "goldset_classify": {"cpu_s": 4.6, "peak_rss_mb": 800.0, "wall_s": 5.0},
            "polars_distinct_count": {"cpu_s": 2.3, "peak_rss_mb": 763.0, "wall_s": 2.0},
        },
    }
    cpu, peak = EXTERNAL["classify-6m"].parse(json.dumps(classify), "classify")
    assert cpu.ratio == pytest.approx(2.0) and cpu.verdict() == "PASS"
    assert peak.ratio == 800.0 and peak.verdict() == "PASS"
    keys = {"p50_ms": 8.0, "p99_ms": 19.0, "cpu_per_key_ms": 9.0,
            "reference": {"name": "minimal", "cpu_per_key_ms": 6.0}}  # fmt: skip
    p99, cpu = EXTERNAL["keys"].parse("table\n" + json.dumps(keys), "keys")
    assert p99.verdict() == "PASS" and cpu.ratio == pytest.approx(1.5)
    documents = {"bench": "big_documents", "load": [1.0],
                 "land_120kb_cpu": {"p50_ms": 12.0, "max_ms": 30.0},
                 "neardup_1mb_cpu": {"p50_ms": 160.0, "max_ms": 170.0}}  # fmt: skip
    land, neardup = EXTERNAL["long-documents"].parse(json.dumps(documents), "docs")
    assert land.verdict() == "PASS" and neardup.goal is None
    pool = {"parquet": {"seconds": 6.0, "cpu_s": 6.0, "peak_rss_mb": 700.0,
                        "reference": {"cpu_s": 5.0, "peak_rss_mb": 627.0}}}  # fmt: skip
    cpu, memory = EXTERNAL["open-pool"].parse(json.dumps(pool), "open")
    assert cpu.ratio == pytest.approx(1.2) and memory.ratio == pytest.approx(700 / 627)
    serve = {"first_frame_s": 0.9, "cpu_s": 0.8,
             "reference": {"first_frame_s": 0.8, "cpu_s": 0.7}}  # fmt: skip
    wall, _ = EXTERNAL["serve"].parse(json.dumps(serve), "serve")
    assert wall.ratio == pytest.approx(0.9 / 0.8) and wall.verdict() == "PASS"


def test_flags_follow_what_the_script_offers(tmp_path: Path) -> None:
    old = "parser.add_argument('--gb')"
    new = 'parser.add_argument("--lines"); parser.add_argument("--peers"); "--json"'
    args = EXTERNAL["classify-6m"].args
    assert args(True, 5, tmp_path, old)[:2] == ["--gb", "0.006"]
    assert args(True, 5, tmp_path, new)[:6] == [
        "--lines", "600000", "--peers", "polars distinct count", "--json", "--runs",
    ]  # fmt: skip
    assert "--json" not in EXTERNAL["serve"].args(False, 3, tmp_path, old)
