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


@pytest.fixture
def peers() -> Path:
    # A missing copy is a broken checkout, not a reason to skip: fail loudly.
    assert PEERS.is_dir(), f"peer data missing at {PEERS}"
    return PEERS
