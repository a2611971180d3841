"""Under CI a skipped test fails the run (tests/conftest.py): a skip checks nothing and hides in a
green summary. Checked by running pytest on a probe that skips when told to."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve()


def test_probe() -> None:
    reason = os.environ.get("GOLDSET_SKIP_PROBE")
    if reason:
        pytest.skip(reason)


def _run_probe(reason: str, ci: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GOLDSET_SKIP_PROBE": reason, "CI": ci}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"{HERE}::test_probe"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=HERE.parents[2],
    )


def test_a_skip_fails_under_ci() -> None:
    done = _run_probe("peer data not found", ci="true")
    assert done.returncode == 1, done.stdout
    assert "SKIPPED (not allowed) tests/unit/test_ci_skips.py::test_probe" in done.stdout


def test_a_skip_is_only_reported_outside_ci() -> None:
    assert _run_probe("peer data not found", ci="").returncode == 0


def test_tmux_missing_is_allowed_only_when_it_is() -> None:
    import shutil

    done = _run_probe("tmux not installed", ci="true")
    assert done.returncode == (0 if shutil.which("tmux") is None else 1), done.stdout
