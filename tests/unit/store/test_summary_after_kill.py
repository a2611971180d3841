"""A session killed before it could close (SIGKILL, a dropped SSH link) still shows when it
worked: the home screen's "last session" was empty for a labeller whose grades were all saved,
because only a closing writer wrote the manifest's ``last``."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from goldset_tui.model import Judgment
from goldset_tui.store import Project, sha256_file


def make(tmp_path: Path) -> Project:
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"query_id": "q1"}\n')
    return Project.create(tmp_path / "store", pool_path=pool, pool_sha256=sha256_file(pool))


def test_last_is_the_last_grade_of_a_session_that_was_killed(tmp_path: Path) -> None:
    project = make(tmp_path)
    # The child grades twice and dies without closing its writer, as under kill -9.
    child = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from goldset_tui.model import Judgment
        from goldset_tui.store import Project
        w = Project.open(Path({str(project.path)!r})).writer("ana")
        w.record(Judgment("ana", "q1", "d1", 2, "2026-03-04T05:06:07.000Z"))
        w.record(Judgment("ana", "q1", "d2", 0, "2026-03-04T05:07:00.000Z"))
        os._exit(9)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    assert subprocess.run([sys.executable, "-c", child], env=env, check=False).returncode == 9
    summary = Project.open(project.path).summary().to_dicts()
    assert [(r["labeller"], r["judged"], r["last"]) for r in summary] == [
        ("ana", 2, "2026-03-04T05:07:00.000Z")
    ]


def test_a_closed_session_keeps_the_later_of_its_end_and_its_last_grade(tmp_path: Path) -> None:
    project = make(tmp_path)
    with project.writer("bob") as w:  # closing writes "last": now, after the grade's old time
        w.record(Judgment("bob", "q1", "d1", 1, "2020-01-01T00:00:00.000Z"))
    ended = Project.open(project.path).manifest["labellers"]["bob"]["last"]
    (row,) = Project.open(project.path).summary().to_dicts()
    assert row["last"] == ended > "2020-01-01T00:00:00.000Z"
