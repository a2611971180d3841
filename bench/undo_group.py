"""How long does ``u`` take on a near-duplicate group one ``d`` graded, and reopening with history?

One query whose --alike candidates all have the same text; the labeller grades one and presses
``d`` through the real store. Side by side:

- one ``u`` (now): ``JudgingSession.undo`` takes the whole group back with
  ``JudgmentWriter.undo_many``: one journal write, one fsync, the parts read once;
- one ``undo()`` per candidate (before: one press of ``u`` each): the same undos one pair at a
  time, each its own write + fsync and its own read of the parts;
- reopening: a new session replays the labeller's history into the undo stack
  (``judging/history.py``) so that ``u`` after a reconnect still works; then one ``u``.

Wall time depends on the disk and on the other load on the machine (medians of --repeat runs).

    python bench/undo_group.py                 # 3,000 alike
    python bench/undo_group.py --alike 10000 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import polars as pl

from goldset_tui.judging import JudgingSession
from goldset_tui.store import Project, sha256_file

SAME = "Rotate an API key: create a second key, deploy it, then revoke the first one for good."


def run_once(alike: int) -> dict[str, float]:
    folder = Path(tempfile.mkdtemp(prefix="goldset-undo-bench-"))
    rows = [
        {"query_id": "q1", "query": "rotate", "doc_id": f"s{i:06d}", "text": SAME}
        for i in range(alike)
    ]
    pool = folder / "pool.jsonl"
    pool.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    project = Project.create(folder / "store", pool_path=pool, pool_sha256=sha256_file(pool))

    def session() -> JudgingSession:
        known = "ana" in project.labellers()
        return JudgingSession(
            pl.DataFrame(rows),
            "ana",
            writer=project.writer("ana"),
            judged=project.judgments("ana") if known else None,
            history=project.judgments("ana", history=True) if known else None,
        )

    out: dict[str, float] = {}
    s = session()
    source = s.pos
    s.grade(2)
    s.grade_group(source)
    t = time.perf_counter()
    step = s.undo()
    out["one u (undo_many)"] = time.perf_counter() - t
    assert step is not None and step.undone == alike - 1

    source = s.pos
    s.grade(1)
    s.grade_group(source)
    s.close()
    t = time.perf_counter()
    s = session()
    out["reopen: history -> undo stack"] = time.perf_counter() - t
    t = time.perf_counter()
    step = s.undo()
    out["one u after reopening (the group)"] = time.perf_counter() - t
    assert step is not None and step.undone == alike - 1, step
    step = s.undo()
    assert step is not None and step.undone == 1  # then the one graded by hand

    source = s.pos
    s.grade(3)
    s.grade_group(source)
    pairs = [(e.query_id, e.doc_id) for e in s._undo if e.group is not None]
    t = time.perf_counter()
    for query_id, doc_id in pairs:
        s.writer.undo(query_id, doc_id)  # type: ignore[union-attr]
    out["one undo() per candidate (before)"] = time.perf_counter() - t
    s.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--alike", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    runs = [run_once(args.alike) for _ in range(args.repeat)]
    print(f"{args.alike - 1:,} near-duplicates graded with one d; medians of {args.repeat} run(s)")
    print(f"{'what':38} {'seconds':>9}")
    for name in runs[0]:
        print(f"{name:38} {statistics.median(r[name] for r in runs):9.3f}")


if __name__ == "__main__":
    main()
