"""Every path goldset uses by default, in one place (platformdirs).

Environment variables override them, which the tests use to keep everything inside a temporary
folder: ``GOLDSET_DATA_DIR`` and ``GOLDSET_CONFIG_DIR``.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "goldset"


def data_dir() -> Path:
    override = os.environ.get("GOLDSET_DATA_DIR")
    return Path(override) if override else platformdirs.user_data_path(APP_NAME)


def config_dir() -> Path:
    override = os.environ.get("GOLDSET_CONFIG_DIR")
    return Path(override) if override else platformdirs.user_config_path(APP_NAME)


def projects_dir() -> Path:
    """Where stores live when ``--store`` is not given: one folder per project."""
    return data_dir() / "projects"


def config_file() -> Path:
    """The user's TOML config: key remapping and preferences."""
    return config_dir() / "config.toml"


def known_stores_file() -> Path:
    """The stores goldset has made or opened, wherever they are (``store.registry``)."""
    return data_dir() / "stores.json"
