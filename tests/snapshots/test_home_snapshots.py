"""Snapshots of the home screen at 80x24 and 120x40 with two projects alike but for one folder
deep in their pools' paths (issue 12): names cut in the middle and kept apart, and the selected
row's pool path, creation time and pool sha256 prefix under the table. The rows are fixed (no
scan of a temporary folder) and the clock is fixed (19:45 UTC on 2026-11-30, shown in UTC), so the
paths and times in the picture do not move: "today 08:41" and "Nov 29 17:02".

Regenerate with `pytest tests/snapshots/test_home_snapshots.py --snapshot-update` and look at the
SVGs before committing them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from goldset_tui.ui.app import GoldsetApp
from goldset_tui.ui.screens import home
from goldset_tui.ui.text import when

ROWS = [
    home.Row(
        store=Path("/data/goldset/projects/pool-1"),
        project="experiment-alpha-with-long-name/docs-pool",
        pool=Path("/home/ana/work/experiment-alpha-with-long-name/docs-pool.jsonl"),
        labeller="alice",
        judged=120,
        last="2026-11-29 17:02",
        created="2026-11-20 09:15",
        pool_sha="3f1c9a07be52d4e1aa90",
    ),
    home.Row(
        store=Path("/data/goldset/projects/pool-2"),
        project="experiment-omega-with-long-name/docs-pool",
        pool=Path("/home/ana/work/experiment-omega-with-long-name/docs-pool.jsonl"),
        labeller="alice",
        judged=7,
        last="2026-11-30 08:41",
        created="2026-11-30 08:30",
        pool_sha="b07d22c1e9f03a5566aa",
    ),
]
SIZES = [(80, 24), (120, 40)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_home_tells_alike_projects_apart(snap_compare, monkeypatch, size) -> None:
    monkeypatch.setattr(home, "scan", lambda root=None: list(ROWS))
    monkeypatch.setattr(when, "local_now", lambda: datetime(2026, 11, 30, 19, 45, tzinfo=UTC))
    root = Path("/data/goldset/projects")  # named in the hint line: a fixed path, not a tmp one
    app = GoldsetApp(lambda: home.HomeScreen(root))
    assert snap_compare(app, terminal_size=size, press=["down"])
