"""Parse a TOML file (config, store manifest, sampling manifest) or say in one line why not.

One reader for every TOML goldset reads, so each names the line of the problem: Python 3.11's
``tomllib`` only puts the place inside its message ("... (at line 3, column 8)").
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from goldset_tui.errors import InputError

_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)")


def parse_toml(path: str | Path, raw: bytes, *, what: str = "") -> dict[str, Any]:
    """``raw`` (the bytes of ``path``) as TOML; ``what`` ("manifest", "config file") starts the
    message when given. Errors name the line."""
    prefix = f"{what} is " if what else ""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            path, f"{prefix}not UTF-8", line=raw.count(b"\n", 0, exc.start) + 1
        ) from None
    try:
        return tomllib.loads(text)
    except RecursionError:  # tomllib recurses once per level of nesting, as json does
        from goldset_tui.io.values import DEEPEST, deep_at  # Polars only on this error path

        at = deep_at(text)
        raise InputError(
            path,
            f"{prefix}not valid TOML: nested more than {DEEPEST} levels deep",
            line=text.count("\n", 0, at) + 1,
        ) from None
    except tomllib.TOMLDecodeError as exc:
        found = _AT.search(str(exc))
        message = _AT.sub("", str(exc))
        where = f" (column {found.group(2)})" if found else ""
        line = int(found.group(1)) if found else None
        raise InputError(path, f"{prefix}not valid TOML: {message}{where}", line=line) from None
