"""Shared test setup: every test runs with its own data and config folders, so nothing touches
the real user's store and tests cannot see each other's projects."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The reference tools' public test data, copied from the workplace's shared/peers so that a clone of
# this repository alone runs every comparison (tests/data/peers/README.md says where each file came from).
PEERS = ROOT / "tests" / "data" / "peers"
SAMPLE = ROOT / "sample_data"

# --- CI: a skip is a failure, except where the machine truly lacks what the test needs ---------
# A test that skips checks nothing, and a skip is easy to miss in a green run (the peer data once
# went missing and every trec_eval comparison skipped). Under CI (CI set, as .ci/run does) the run
# fails on any skip but these: tmux missing (only when it is), and the sample-data checks that
# need the exact Python the corpus was built from (its docstrings differ between versions).
ALLOWED_SKIPS: tuple[tuple[re.Pattern[str], bool], ...] = (
    (re.compile(r"tmux not installed"), shutil.which("tmux") is None),
    (re.compile(r"the (corpus|files) w(as|ere) built on \d"), True),
)
_skipped: list[tuple[str, str]] = []


def _strict_skips() -> bool:
    return os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no"}


def _skip_reason(report: pytest.CollectReport | pytest.TestReport) -> str:
    longrepr = report.longrepr
    return str(longrepr[2]) if isinstance(longrepr, tuple) else str(longrepr)


def _note_skip(report: pytest.CollectReport | pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        _skipped.append((report.nodeid, _skip_reason(report)))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _note_skip(report)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    _note_skip(report)  # a module-level importorskip skips a whole file at collection


def forbidden_skips() -> list[tuple[str, str]]:
    return [
        (node, reason)
        for node, reason in _skipped
        if not any(allowed and pattern.search(reason) for pattern, allowed in ALLOWED_SKIPS)
    ]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # On the xdist controller only: it receives every worker's reports.
    if _strict_skips() and not hasattr(session.config, "workerinput") and forbidden_skips():
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    bad = forbidden_skips() if _strict_skips() else []
    if bad:
        terminalreporter.section("skips are failures under CI", sep="=", red=True, bold=True)
        for node, reason in bad:
            terminalreporter.line(f"SKIPPED (not allowed) {node}: {reason}", red=True)


@pytest.fixture(autouse=True)
def isolated_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    base = tmp_path_factory.mktemp("goldset-home")
    monkeypatch.setenv("GOLDSET_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("GOLDSET_CONFIG_DIR", str(base / "config"))
    return base


@pytest.fixture(autouse=True)
def a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process tests drive screens headless (``run_test``) or stand in for ``run_app``: they
    are the terminal. The refusal without one is tested in subprocesses, with real stdin/stdout
    (tests/terminal/test_no_terminal.py)."""
    from goldset_tui.app import terminal as _terminal

    monkeypatch.setattr(_terminal, "has_terminal", lambda: True)


@pytest.fixture(autouse=True)
def keys_wait_for_the_candidate(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Pilot key press waits until every judging screen on the stack has drawn its first
    candidate, as a labeller looks before pressing. The judging screen drops a key typed before
    that (the type-ahead guard), so on a loaded machine a test that pressed while the pool was
    still loading in its thread lost the key and failed at random. Tests of the type-ahead
    guard itself opt out with ``@pytest.mark.typeahead``."""
    if request.node.get_closest_marker("typeahead") is not None:
        return
    import time

    from textual.pilot import Pilot

    from goldset_tui.ui.widgets.judge_guard import KeyGuard

    real = Pilot.press

    def loading(pilot: Pilot) -> bool:
        stack = pilot.app.screen_stack if pilot.app.is_running else []
        return any(isinstance(s, KeyGuard) and not s.ready_for_keys for s in stack)

    async def press(self: Pilot, *keys: str) -> None:
        end = time.monotonic() + 120  # a guard against a hang only, never reached when all is well
        while loading(self) and time.monotonic() < end:
            await self.pause(0.02)
        await real(self, *keys)

    monkeypatch.setattr(Pilot, "press", press)


@pytest.fixture
def peers() -> Path:
    # A missing copy is a broken checkout, not a reason to skip: fail loudly.
    assert PEERS.is_dir(), f"peer data missing at {PEERS}"
    return PEERS
