"""What bench/speed_table.py measures with: a whole child process's CPU and peak memory, medians
of repeated runs taken in turns, and the table's row shape.

CPU time is user + system time of the child (every thread), and peak memory its ru_maxrss, both
from ``os.wait4`` on that child alone: on a shared machine wall time says more about the
neighbours than about the program, CPU time much less. The load average is read before each
row, so a reader can tell a quiet figure from a loaded one. Tools of one row take turns
(goldset, then each reference, then goldset again...), so a change in the load falls on all.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Sample:
    cpu: float  # user + system seconds of the child, all its threads
    wall: float
    rss_mb: float  # its peak resident memory
    out: str = ""


@dataclass(frozen=True)
class Figure:
    """Medians over the repeats of one tool's samples (several processes of one repeat, as two
    trec_eval runs for the report, are added up first: CPU and wall summed, the largest peak)."""

    cpu: float
    wall: float
    rss_mb: float
    out: str = ""

    def text(self) -> str:
        return f"{self.cpu:.2f} s CPU, {self.wall:.2f} s wall, {self.rss_mb:,.0f} MB"


@dataclass
class Line:
    """One printed row: a case, goldset's figure, one reference's, the ratio and the goal.

    ``ratio`` is goldset / reference (CPU time unless ``basis`` says otherwise); ``goal`` the
    largest ratio (or value) that passes, None when the row only shows a reference; ``note``
    says what was not measured, or anything a reader must know about the figures."""

    case: str
    goldset: str
    reference: str
    ratio: float | None = None
    goal: float | None = None
    basis: str = "CPU"
    note: str = ""
    load: float = field(default_factory=lambda: os.getloadavg()[0])

    def verdict(self) -> str:
        if self.ratio is None or self.goal is None:
            return "-" if self.note == "" or self.ratio is not None else "not measured"
        return "PASS" if self.ratio <= self.goal else "MISS"


class NotMeasured(Exception):
    """A row (or one reference of it) that could not be measured; the message says why."""


def run_once(
    command: Sequence[str], *, cwd: Path | None = None, timeout: float | None = None
) -> Sample:
    """One whole process: its CPU, wall time and peak memory; its stdout. A failing process is
    NotMeasured with the end of what it said on stderr; one still running after ``timeout``
    seconds is killed (it and its process group) and NotMeasured."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        try:
            child = subprocess.Popen(
                command, stdout=out, stderr=err, cwd=cwd, start_new_session=timeout is not None
            )
        except OSError as error:
            raise NotMeasured(f"{command[0]}: {error.strerror}") from None
        status, usage = _wait(child, start, timeout)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        text, said = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        last = [line for line in said.strip().splitlines() if line.strip()][-1:] or ["(nothing)"]
        raise NotMeasured(
            f"{Path(command[1] if len(command) > 1 else command[0]).name} "
            f"exited {code}: {last[0][:160]}"
        )
    return Sample(usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024, text)


def _wait(
    child: subprocess.Popen, start: float, timeout: float | None
) -> tuple[int, os.struct_rusage]:
    if timeout is None:
        _, status, usage = os.wait4(child.pid, 0)
        return status, usage
    while True:  # a benchmark's own child: polled, then its session killed on timeout
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            return status, usage
        if time.perf_counter() - start > timeout:
            os.killpg(child.pid, 9)
            os.wait4(child.pid, 0)
            raise NotMeasured(f"still running after {timeout:.0f} s, stopped")
        time.sleep(0.2)


def combined(samples: Sequence[Sample]) -> Sample:
    """Several processes that make one measurement (run one after the other)."""
    return Sample(
        sum(s.cpu for s in samples),
        sum(s.wall for s in samples),
        max(s.rss_mb for s in samples),
        "".join(s.out for s in samples),
    )


Tool = Callable[[], Sample]


def in_turns(tools: dict[str, Tool], repeats: int) -> dict[str, Figure | NotMeasured]:
    """Each tool ``repeats`` times, in turns; its medians, or why it could not be measured (a
    tool that fails once is not run again)."""
    samples: dict[str, list[Sample]] = {name: [] for name in tools}
    failed: dict[str, NotMeasured] = {}
    for _ in range(repeats):
        for name, tool in tools.items():
            if name in failed:
                continue
            try:
                samples[name].append(tool())
            except NotMeasured as error:
                failed[name] = error
    out: dict[str, Figure | NotMeasured] = {}
    for name, runs in samples.items():
        if name in failed:
            out[name] = failed[name]
            continue
        out[name] = Figure(
            statistics.median(s.cpu for s in runs),
            statistics.median(s.wall for s in runs),
            statistics.median(s.rss_mb for s in runs),
            runs[-1].out,
        )
    return out


def compare(
    case: str,
    figures: dict[str, Figure | NotMeasured],
    reference: str,
    goal: float | None,
    *,
    basis: str = "CPU",
    note: str = "",
) -> Line:
    """goldset's figure against one reference's, as one printed line."""
    ours, theirs = figures.get("goldset"), figures.get(reference)
    if isinstance(ours, NotMeasured) or ours is None:
        return Line(case, "not measured", reference, note=str(ours or "no goldset figure"))
    if isinstance(theirs, NotMeasured) or theirs is None:
        why = str(theirs) if theirs is not None else "not run"
        return Line(case, ours.text(), f"{reference}: not measured", goal=goal, note=why)
    if basis == "wall":
        ratio = ours.wall / theirs.wall
    elif basis == "RSS":
        ratio = ours.rss_mb / theirs.rss_mb
    else:
        ratio = ours.cpu / theirs.cpu
    return Line(
        case, ours.text(), f"{reference} {theirs.text()}", ratio, goal, basis=basis, note=note
    )
