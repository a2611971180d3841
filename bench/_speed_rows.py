"""The rows of bench/speed_table.py that other benchmarks measure: classify on large logs, the
judging screen's keys and long documents, opening a large pool, serve's first frame.

Each is a small registry entry: the script, its arguments (full size or --quick), and a parser
that reads the figures the script prints. The script runs as it is, in a child process, so a
change made to it (or to what it measures) shows in the table without touching this file. A
script that is missing, fails, times out or prints no figure the parser knows gives a row that
says "not measured" and why; the table goes on.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from _speed_measure import Line, NotMeasured, run_once

BENCH = Path(__file__).resolve().parent


@dataclass(frozen=True)
class External:
    case: str
    script: str
    args: Callable[[bool, int, Path], list[str]]  # (quick, repeats, folder) -> arguments
    parse: Callable[[str, str], list[Line]]  # (stdout, case) -> lines
    timeout: float = 3600.0


def _number(pattern: str, text: str, what: str) -> list[float]:
    found = re.search(pattern, text, re.MULTILINE)
    if not found:
        raise NotMeasured(f"printed no {what}")
    return [float(g.replace(",", "")) for g in found.groups()]


def _classify(case: str, text: str) -> list[Line]:
    row = r"\s+([\d.,]+)\s+[\d.,]+\s+([\d.,]+)\s+([\d.,]+)\s*$"
    cpu, rss, wall = _number(r"^goldset classify" + row, text, "goldset classify row")
    ref_cpu, ref_rss, ref_wall = _number(r"^scan \+ group_by" + row, text, "group_by row")
    ours = f"{cpu:.1f} s CPU, {wall:.1f} s wall, {rss:,.0f} MB"
    theirs = f"Polars distinct count {ref_cpu:.1f} s CPU, {ref_rss:,.0f} MB"
    return [
        Line(case, ours, theirs, cpu / ref_cpu, 2.0),
        Line(case, ours, "(peak memory)", rss, 1024.0, basis="MB peak"),
    ]


def _classify_args(lines_m: float, gb: float) -> Callable[[bool, int, Path], list[str]]:
    def args(quick: bool, repeats: int, folder: Path) -> list[str]:
        scale = 0.1 if quick else 1.0
        return [
            "--gb",
            f"{gb * scale:g}",
            "--distinct",
            str(int(lines_m * 1e6 * scale)),
            "--runs",
            str(min(repeats, 3)),
            "--folder",
            str(folder),
        ]

    return args


def _keys(case: str, text: str) -> list[Line]:
    n, median, p99, top = _number(
        r"every key\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", text, "per-key latencies"
    )
    (cpu,) = _number(r"child CPU per key[^:]*:\s+([\d.]+) ms", text, "CPU per key")
    lines = [
        Line(
            case,
            f"median {median:.1f} ms, p99 {p99:.1f} ms ({n:.0f} keys)",
            "(p99)",
            p99,
            20.0,
            basis="ms p99",
            note="goal on a quiet machine: see the load",
        ),
    ]
    minimal = re.search(r"minimal[^\n]*?([\d.]+) ms", text)
    if minimal:
        ref = float(minimal.group(1))
        lines.append(
            Line(
                case, f"{cpu:.2f} ms CPU a key", f"minimal Textual app {ref:.2f} ms", cpu / ref, 2.0
            )
        )
    else:
        lines.append(
            Line(
                case,
                f"{cpu:.2f} ms CPU a key",
                "minimal Textual app",
                goal=2.0,
                note="bench/judge_keys.py prints no minimal-app figure",
            )
        )
    return lines


def _documents(case: str, text: str) -> list[Line]:
    found = re.findall(r"^(\S.*?)\s+median\s+([\d.]+) ms\s+max\s+([\d.]+) ms", text, re.MULTILINE)
    if not found:
        raise NotMeasured("printed no 'median ... ms max ... ms' line")
    lines = []
    for name, median, top in found:
        screen = "screen" in name or " m " in f" {name} "
        shown = f"median {float(median):.1f} ms, max {float(top):.1f} ms CPU"
        # The median decides: one slow run in a loaded minute is the neighbours' doing.
        goal = 20.0 if screen else None
        lines.append(
            Line(f"{case}: {name.strip()}", shown, "(median)", float(median), goal, basis="ms CPU")
        )
    return lines


def _open_pool(case: str, text: str) -> list[Line]:
    row = r"\s+([\d.]+)\s+[\d.]+\s+([\d.,]+)\s+[\d.,]+\s*$"
    f_s, f_mb = _number(r"^parquet\s+pl\.read_parquet \(floor\)" + row, text, "floor row")
    g_s, g_mb = _number(r"^parquet\s+goldset load_pool" + row, text, "load_pool row")
    ours = f"{g_s:.2f} s, {g_mb:,.0f} MB"
    return [
        Line(case, ours, f"read_parquet {f_s:.2f} s", g_s / f_s, 1.3, basis="wall"),
        Line(case, ours, f"read_parquet {f_mb:,.0f} MB", g_mb / f_mb, 1.2, basis="RSS"),
    ]


def _serve(case: str, text: str) -> list[Line]:
    row = r"\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|\s*([\d.,]+)\s*\|"
    t_wall, t_cpu, t_mb = _number(r"^\|\s*terminal\s*\|" + row, text, "terminal row")
    w_wall, w_cpu, w_mb = _number(r"^\|\s*web\s*\|" + row, text, "web row")
    ours = f"{w_wall:.2f} s wall, {w_cpu:.2f} s CPU, {w_mb:,.0f} MB"
    return [
        Line(case, ours, f"terminal {t_wall:.2f} s wall", w_wall / t_wall, 1.2, basis="wall"),
        Line(case, ours, f"terminal {t_cpu:.2f} s CPU", w_cpu / t_cpu, None),
    ]


def _repeat(flag: str, cap: int = 9) -> Callable[[bool, int, Path], list[str]]:
    return lambda quick, repeats, folder: [flag, str(min(repeats, cap))]


EXTERNAL: dict[str, External] = {
    "classify-6m": External(
        "classify 6 M lines, almost all distinct",
        "log_scale.py",
        _classify_args(6, 0.06),
        lambda text, case: _classify(case, text),
    ),
    "classify-48m": External(
        "classify 48 M lines, almost all distinct",
        "log_scale.py",
        _classify_args(48, 0.832),
        lambda text, case: _classify(case, text),
    ),
    "keys": External(
        "keypress -> next candidate, 1 M-row pool, 80x24 pty",
        "judge_keys.py",
        lambda quick, repeats, folder: (
            ["--queries", "2500", "--presses", "400", "--cpu-presses", "200"] if quick else []
        ),
        lambda text, case: _keys(case, text),
    ),
    "long-documents": External(
        "long documents",
        "big_documents.py",
        _repeat("--repeat", 20),
        lambda text, case: _documents(case, text),
    ),
    "open-pool": External(
        "opening a 1 M-row pool",
        "load_pool.py",
        lambda quick, repeats, folder: (
            (["--queries", "2500"] if quick else [])
            + ["--repeat", str(min(repeats, 5)), "--dir", str(folder / "load_pool")]
        ),
        lambda text, case: _open_pool(case, text),
    ),
    "serve": External(
        "`goldset serve` first frame",
        "serve_cost.py",
        _repeat("--repeat", 5),
        lambda text, case: _serve(case, text),
    ),
}


def measure_external(key: str, quick: bool, repeats: int, folder: Path) -> list[Line]:
    """The row's lines, or one line saying why it was not measured."""
    entry = EXTERNAL[key]
    script = BENCH / entry.script
    if not script.exists():
        return [Line(entry.case, "not measured", "-", note=f"bench/{entry.script} is missing")]
    command = [sys.executable, str(script), *entry.args(quick, repeats, folder)]
    try:
        sample = run_once(command, cwd=BENCH.parent, timeout=entry.timeout)
        return entry.parse(sample.out, entry.case)
    except NotMeasured as why:
        return [Line(entry.case, "not measured", "-", note=f"bench/{entry.script}: {why}")]
    except Exception as error:  # a parser meeting an output it does not know
        return [Line(entry.case, "not measured", "-", note=f"bench/{entry.script}: {error!r}")]
