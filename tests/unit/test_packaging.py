"""`pip install .` is the README's first command: it must not greet a new user with a wall of
build warnings. setuptools (77 and later) prints a framed "`project.license` as a TOML table is
deprecated ... By 2027-Feb-18 ... your builds will no longer be supported" for
`license = { text = "MIT" }`, twice per install; an SPDX string is the supported form."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_license_is_an_spdx_string_and_setuptools_can_read_it() -> None:
    data = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    assert isinstance(data["project"]["license"], str)
    # A plain SPDX expression is read by setuptools 77 and later only: the build must ask for it.
    (setuptools,) = [r for r in data["build-system"]["requires"] if r.startswith("setuptools")]
    minimum = re.fullmatch(r"setuptools>=(\d+)(?:\.\d+)*", setuptools)
    assert minimum is not None and int(minimum.group(1)) >= 77
