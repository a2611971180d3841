"""Every TOML goldset reads names the line of a problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui.errors import InputError
from goldset_tui.sampling.manifest import read_manifest as read_sampling_manifest
from goldset_tui.store.manifest import read_manifest as read_store_manifest


def test_store_manifest_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "manifest.toml").write_bytes(b'format = 1\nname = "x"\nnot a key value\n')
    with pytest.raises(InputError) as err:
        read_store_manifest(tmp_path)
    assert err.value.line == 3 and "manifest is not valid TOML" in str(err.value)


def test_sampling_manifest_names_the_line_of_bad_bytes(tmp_path: Path) -> None:
    p = tmp_path / "golden.manifest.toml"
    p.write_bytes(b'seed = 1\n\nname = "\xff"\n')
    with pytest.raises(InputError) as err:
        read_sampling_manifest(p)
    assert err.value.line == 3 and "not UTF-8" in str(err.value)
