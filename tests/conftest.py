"""Shared test setup: every test runs with its own data and config folders, so nothing touches
the real user's store and tests cannot see each other's projects."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PEERS = ROOT.parent / "shared" / "peers"
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
    if not PEERS.exists():
        pytest.skip(f"peer data not found at {PEERS}")
    return PEERS
