"""The application layer works without a terminal: a notebook or a script opens judging, grades,
and opens the review of the store through ``goldset_tui.app`` with the same checks and numbers as
the screens, and Textual is never imported on the way (not even lazily, inside a function).

Run in a subprocess so that nothing the test session imported counts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import goldset_tui

POOL = Path(goldset_tui.__file__).parent.parent / "sample_data" / "pool.jsonl"

SCRIPT = """
import json, sys
from goldset_tui.app.judging import open_judging, start_judging
from goldset_tui.app.review import review_for_store

store, pool, screen = sys.argv[1], sys.argv[2], sys.argv[3] == "screen"
setup = open_judging(pool, "alice", store=store)
if screen:  # the UI's door: makes the judging screen, so Textual comes in
    from goldset_tui.ui.opening import judge_screen
    judge_screen(setup).flush()
    print(json.dumps({"textual": "textual" in sys.modules}))
    raise SystemExit(0)
start = start_judging(setup)
session = start.session()
grades = [3, 0, 2, 1, 3, 0]
for grade in grades:
    session.grade(grade)
session.close()
review = review_for_store(store, "alice")
print(json.dumps({
    "textual": "textual" in sys.modules,
    "judged": setup.project.judgments("alice").height,
    "metric": review.report.metric,
    "source": review.source,
    "sources": review.sources,
    "systems": sorted(review.report.systems),
}))
"""


def run(store: Path, mode: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(store), str(POOL), mode],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_judging_and_review_open_without_textual(tmp_path: Path) -> None:
    got = run(tmp_path / "store", "app")
    assert got["textual"] is False
    assert got["judged"] == 6  # every grade durable in the store
    assert got["metric"] == "Success@10"  # the review's default, as `goldset review --store`
    assert got["source"] == "alice's grades"
    assert got["sources"] == ["alice", "consensus"]
    assert "bm25" in got["systems"] and "minilm" in got["systems"]  # rebuilt from the pool


def test_the_check_would_notice_textual(tmp_path: Path) -> None:
    # The UI's door to the same setup does import Textual: the check above can fail.
    assert run(tmp_path / "store", "screen") == {"textual": True}
