"""Shared test setup: every test runs with its own data and config folders, so nothing touches
the real user's store and tests cannot see each other's projects."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The reference tools' public test data, copied from the workplace's shared/peers so that a clone of
# this repository alone runs every comparison (tests/data/peers/README.md says where each file came from).
PEERS = ROOT / "tests" / "data" / "peers"
SAMPLE = ROOT / "sample_data"


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
    from goldset_tui.commands import _terminal

    monkeypatch.setattr(_terminal, "has_terminal", lambda: True)


@pytest.fixture
def peers() -> Path:
    # A missing copy is a broken checkout, not a reason to skip: fail loudly.
    assert PEERS.is_dir(), f"peer data missing at {PEERS}"
    return PEERS
