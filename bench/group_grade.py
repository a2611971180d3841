"""How long does ``d`` take on a large near-duplicate group?

One query whose --alike candidates (50,000 by default) all have the same text; the labeller grades
one and presses ``d``: ``JudgingSession.grade_group`` gives the rest the same grade through the
real store (journal + fdatasync). Side by side:

- batched (now): ``JudgmentWriter.record_many``, one journal write and one fsync per batch of
  ``GROUP_BATCH`` judgments, progress after each batch;
- one at a time (before): the same session through a writer without ``record_many``, so every
  judgment is its own write + fsync. It runs on the first --before candidates only (at one fsync
  each a 50,000 group took minutes) and its total is extrapolated linearly, said as such.

Wall time depends on the disk and on the other load on the machine; the CPU time of this process
(resource.getrusage) and the number of fsyncs are printed beside it. The one-off near-duplicate
detection over the query (``neardup.groups``) is timed apart.

    python bench/group_grade.py                       # 50,000 alike
    python bench/group_grade.py --alike 5000 --before 1000
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import goldset_tui.store.journal as journal_module
from goldset_tui.judging import JudgingSession
from goldset_tui.judging.session import GROUP_BATCH
from goldset_tui.store import Project, sha256_file

SAME = "Rotate an API key: create a second key, deploy it, then revoke the first one for good."
SYNCS = [0]
_real_fsync = journal_module.fsync_fd


def _counted_fsync(fd: int) -> None:
    SYNCS[0] += 1
    _real_fsync(fd)


journal_module.fsync_fd = _counted_fsync


class OneAtATime:
    """The real writer without ``record_many``: the session falls back to one fsync each."""

    def __init__(self, writer) -> None:
        self._w = writer

    def record(self, judgment):
        return self._w.record(judgment)

    def undo(self, query_id, doc_id):
        return self._w.undo(query_id, doc_id)

    def note(self, query_id, doc_id, text):
        return self._w.note(query_id, doc_id, text)

    def close(self):
        return self._w.close()


def pool(alike: int) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "query_id": ["q1"] * (alike + 1),
            "query": ["rotate key"] * (alike + 1),
            "doc_id": [f"same{i:06d}" for i in range(alike)] + ["other"],
            "text": [SAME] * alike + ["Something else entirely."],
        }
    )


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(folder: Path, alike: int, batched: bool) -> tuple[float, float, int, int, float]:
    poolfile = folder / "pool.jsonl"
    poolfile.write_text('{"query_id": "q1"}\n')
    project = Project.create(
        folder / "store", pool_path=poolfile, pool_sha256=sha256_file(poolfile)
    )
    writer = project.writer("ana")
    session = JudgingSession(pool(alike), "ana", writer=writer if batched else OneAtATime(writer))
    while not session.current.doc_id.startswith("same"):
        session.move(1)
    session.grade(2)
    source = next(p for p in range(session.size) if session.grade_at(p) == 2)
    t = time.perf_counter()
    session.duplicates_of(source)  # near-duplicate detection, once per query
    detect = time.perf_counter() - t
    SYNCS[0] = 0
    wall, cpu0 = time.perf_counter(), cpu()
    done = session.grade_group(source)
    wall, used = time.perf_counter() - wall, cpu() - cpu0
    syncs = SYNCS[0]
    writer.close()
    assert project.judgments("ana").height == len(done) + 1
    return wall, used, syncs, len(done), detect


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--alike", type=int, default=50_000)
    parser.add_argument("--before", type=int, default=2_000)
    parser.add_argument("--dir", default=None, help="where the stores go (the disk matters)")
    args = parser.parse_args()
    print(f"load average (1, 5, 15 min): {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="goldset-group-", dir=args.dir) as tmp:
        for name, batched, n in [
            (f"batched, {GROUP_BATCH:,} per fsync (now)", True, args.alike),
            ("one fsync per judgment (before)", False, min(args.before, args.alike)),
        ]:
            folder = Path(tmp) / ("a" if batched else "b")
            folder.mkdir()
            wall, used, syncs, done, detect = run(folder, n, batched)
            scale = (args.alike - 1) / done
            rows.append((name, done, wall, used, syncs, wall * scale, used * scale, detect))
    print(f"group of {args.alike:,} alike candidates (the graded one + {args.alike - 1:,} to copy)")
    print(
        f"{'':<38}{'graded':>9}{'wall s':>9}{'cpu s':>8}{'fsyncs':>8}"
        f"{'wall s, whole group':>22}{'cpu s, whole group':>21}"
    )
    for name, done, wall, used, syncs, wall_all, cpu_all, _ in rows:
        extra = "" if done == args.alike - 1 else " (extrapolated)"
        print(
            f"{name:<38}{done:>9,}{wall:>9.2f}{used:>8.2f}{syncs:>8,}{wall_all:>22.1f}{cpu_all:>21.1f}{extra}"
        )
    print(
        f"near-duplicate detection over the query (once, before grading): {rows[0][7]:.2f} s wall"
    )
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
