"""The rows of bench/speed_table.py that other benchmarks measure: classify on large logs, the
judging screen's keys and long documents, opening a large pool, serve's first frame.

Each is a small registry entry: the script, its arguments (full size or --quick), and the
parsers of what it prints: its one JSON line when the script offers ``--json`` (the flag is
passed when the script's source names it), else its table. The script runs as it is, in a child process, so a
change made to it (or to what it measures) shows in the table without touching this file. A
script that is missing, fails, times out or prints no figure the parser knows gives a row that
says "not measured" and why; the table goes on.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from _speed_measure import Line, NotMeasured, run_once

BENCH = Path(__file__).resolve().parent


Args = Callable[[bool, int, Path, str], list[str]]  # (quick, repeats, folder, script text)
Parse = Callable[[str, str], list[Line]]  # (what the script printed, case) -> lines


@dataclass(frozen=True)
class External:
    case: str
    script: str
    args: Args
    text: Parse  # reads the script's table
    json: Callable[[dict, str], list[Line]] | None = None  # reads its --json line, when it has one
    timeout: float = 3600.0

    def parse(self, out: str, case: str) -> list[Line]:
        record = _json_line(out) if self.json else None
        if record is not None and self.json:
            return self.json(record, case)
        return self.text(out, case)


def _json_line(out: str) -> dict | None:
    """The last line of ``out`` when it is a JSON object (the scripts' --json), else None."""
    lines = [line for line in out.strip().splitlines() if line.strip()]
    if not lines or not lines[-1].lstrip().startswith("{"):
        return None
    try:
        record = json.loads(lines[-1])
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _knows(source: str, flag: str) -> bool:
    return f'"{flag}"' in source


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
    theirs = f"Polars group-by of the lines {ref_cpu:.1f} s CPU, {ref_rss:,.0f} MB"
    return [
        Line(case, ours, theirs, cpu / ref_cpu, 2.0),
        Line(case, ours, "(peak memory)", rss, 1024.0, basis="MB peak"),
    ]


def _classify_args(lines_m: float, gb: float) -> Args:
    """A log of ``lines_m`` million lines, almost all distinct: with the script's --lines when it
    has it (and Polars' distinct count of the normalised lines as the peer), else by size."""

    def args(quick: bool, repeats: int, folder: Path, source: str) -> list[str]:
        scale = 0.1 if quick else 1.0
        runs = ["--runs", str(min(repeats, 3 if lines_m < 10 else 1)), "--folder", str(folder)]
        if _knows(source, "--lines"):
            extra = ["--peers", "polars distinct count"] if _knows(source, "--peers") else []
            json_flag = ["--json"] if _knows(source, "--json") else []
            return ["--lines", str(int(lines_m * 1e6 * scale)), *extra, *json_flag, *runs]
        size = ["--gb", f"{gb * scale:g}", "--distinct", str(int(lines_m * 1e6 * scale))]
        return [*size, *runs]

    return args


def _classify_json(record: dict, case: str) -> list[Line]:
    processes = record["processes"]
    ours = processes["goldset_classify"]
    peer = processes.get("polars_distinct_count") or processes["scan_and_group_by"]
    shown = f"{ours['cpu_s']:.1f} s CPU, {ours['wall_s']:.1f} s wall, {ours['peak_rss_mb']:,.0f} MB"
    theirs = f"Polars distinct count {peer['cpu_s']:.1f} s CPU, {peer['peak_rss_mb']:,.0f} MB"
    return [
        Line(case, shown, theirs, ours["cpu_s"] / peer["cpu_s"], 2.0),
        Line(case, shown, "(peak memory)", ours["peak_rss_mb"], 1024.0, basis="MB peak"),
    ]


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


def _keys_json(record: dict, case: str) -> list[Line]:
    ours = f"median {record['p50_ms']:.1f} ms, p99 {record['p99_ms']:.1f} ms"
    cpu = record["cpu_per_key_ms"]
    lines = [
        Line(case, ours, "(p99)", record["p99_ms"], 20.0, basis="ms p99",
             note="goal on a quiet machine: see the load"),
    ]  # fmt: skip
    ref = record.get("reference")
    if ref:
        lines.append(Line(case, f"{cpu:.2f} ms CPU a key",
                          f"minimal Textual app {ref['cpu_per_key_ms']:.2f} ms",
                          cpu / ref["cpu_per_key_ms"], 2.0))  # fmt: skip
    else:
        lines.append(Line(case, f"{cpu:.2f} ms CPU a key", "minimal Textual app", goal=2.0,
                          note="bench/judge_keys.py printed no reference"))  # fmt: skip
    return lines


def _keys_args(quick: bool, repeats: int, folder: Path, source: str) -> list[str]:
    size = ["--queries", "2500", "--presses", "400", "--cpu-presses", "200"] if quick else []
    flags = [f for f in ("--reference", "--json") if _knows(source, f)]
    return size + flags


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


def _documents_json(record: dict, case: str) -> list[Line]:
    lines = []
    for key, figure in record.items():
        if not isinstance(figure, dict) or "p50_ms" not in figure:
            continue
        name = key.removesuffix("_cpu").replace("_", " ")
        shown = f"median {figure['p50_ms']:.1f} ms, max {figure['max_ms']:.1f} ms CPU"
        goal = None if key.startswith("neardup") else 20.0  # the screen's moments
        lines.append(Line(f"{case}: {name}", shown, "(median)", figure["p50_ms"], goal,
                          basis="ms CPU"))  # fmt: skip
    if not lines:
        raise NotMeasured("its JSON line holds no timed moment")
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


def _open_pool_json(record: dict, case: str) -> list[Line]:
    ours = record["parquet"]
    ref = ours["reference"]
    shown = f"{ours['cpu_s']:.2f} s CPU, {ours['seconds']:.2f} s, {ours['peak_rss_mb']:,.0f} MB"
    lines = [
        Line(case, shown, f"read_parquet {ref['cpu_s']:.2f} s CPU", ours["cpu_s"] / ref["cpu_s"],
             1.3),
        Line(case, shown, f"read_parquet {ref['peak_rss_mb']:,.0f} MB",
             ours["peak_rss_mb"] / ref["peak_rss_mb"], 1.2, basis="RSS"),
    ]  # fmt: skip
    seen = ours.get("seen_before")  # the same file opened again: its sha256 remembered
    if seen:
        again = f"{case}, opened again"
        shown = f"{seen['cpu_s']:.2f} s CPU, {seen['seconds']:.2f} s, {seen['peak_rss_mb']:,.0f} MB"
        lines.append(Line(again, shown, f"read_parquet {ref['cpu_s']:.2f} s CPU",
                          seen["cpu_s"] / ref["cpu_s"], 1.3))  # fmt: skip
    return lines


def _serve(case: str, text: str) -> list[Line]:
    row = r"\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|\s*([\d.,]+)\s*\|"
    t_wall, t_cpu, t_mb = _number(r"^\|\s*terminal\s*\|" + row, text, "terminal row")
    w_wall, w_cpu, w_mb = _number(r"^\|\s*web\s*\|" + row, text, "web row")
    ours = f"{w_wall:.2f} s wall, {w_cpu:.2f} s CPU, {w_mb:,.0f} MB"
    return [
        Line(case, ours, f"terminal {t_wall:.2f} s wall", w_wall / t_wall, 1.2, basis="wall"),
        Line(case, ours, f"terminal {t_cpu:.2f} s CPU", w_cpu / t_cpu, None),
    ]


def _serve_json(record: dict, case: str) -> list[Line]:
    ref = record["reference"]
    shown = f"{record['first_frame_s']:.2f} s wall, {record['cpu_s']:.2f} s CPU"
    return [
        Line(case, shown, f"terminal {ref['first_frame_s']:.2f} s wall",
             record["first_frame_s"] / ref["first_frame_s"], 1.2, basis="wall"),
        Line(case, shown, f"terminal {ref['cpu_s']:.2f} s CPU", record["cpu_s"] / ref["cpu_s"],
             None),
    ]  # fmt: skip


def _repeat(flag: str, cap: int = 9) -> Args:
    def args(quick: bool, repeats: int, folder: Path, source: str) -> list[str]:
        return [flag, str(min(repeats, cap))] + (["--json"] if _knows(source, "--json") else [])

    return args


def _open_pool_args(quick: bool, repeats: int, folder: Path, source: str) -> list[str]:
    size = ["--queries", "2500"] if quick else []
    json_flag = ["--json"] if _knows(source, "--json") else []
    return [*size, "--repeat", str(min(repeats, 5)), "--dir", str(folder / "load_pool"), *json_flag]


EXTERNAL: dict[str, External] = {
    "classify-6m": External(
        "classify 6 M lines, almost all distinct", "log_scale.py", _classify_args(6, 0.06),
        lambda text, case: _classify(case, text), _classify_json,
    ),
    "classify-48m": External(
        "classify 48 M lines, almost all distinct", "log_scale.py", _classify_args(48, 0.832),
        lambda text, case: _classify(case, text), _classify_json, timeout=7200.0,
    ),
    "keys": External(
        "keypress -> next candidate, 1 M-row pool, 80x24 pty", "judge_keys.py", _keys_args,
        lambda text, case: _keys(case, text), _keys_json,
    ),
    "long-documents": External(
        "long documents", "big_documents.py", _repeat("--repeat", 20),
        lambda text, case: _documents(case, text), _documents_json,
    ),
    "open-pool": External(
        "opening a 1 M-row pool", "load_pool.py", _open_pool_args,
        lambda text, case: _open_pool(case, text), _open_pool_json,
    ),
    "serve": External(
        "`goldset serve` first frame", "serve_cost.py", _repeat("--repeat", 5),
        lambda text, case: _serve(case, text), _serve_json,
    ),
}  # fmt: skip


def measure_external(key: str, quick: bool, repeats: int, folder: Path) -> list[Line]:
    """The row's lines, or one line saying why it was not measured."""
    entry = EXTERNAL[key]
    script = BENCH / entry.script
    if not script.exists():
        return [Line(entry.case, "not measured", "-", note=f"bench/{entry.script} is missing")]
    source = script.read_text(encoding="utf-8", errors="replace")
    command = [sys.executable, str(script), *entry.args(quick, repeats, folder, source)]
    try:
        sample = run_once(command, cwd=BENCH.parent, timeout=entry.timeout)
        return entry.parse(sample.out, entry.case)
    except NotMeasured as why:
        return [Line(entry.case, "not measured", "-", note=f"bench/{entry.script}: {why}")]
    except Exception as error:  # a parser meeting an output it does not know
        return [Line(entry.case, "not measured", "-", note=f"bench/{entry.script}: {error!r}")]
