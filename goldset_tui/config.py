"""The user's config file (TOML under ``locations.config_file()``): key remapping and theme.

    [keymap]            # binding id = keys (comma-separated alternatives), Textual's keymap
    grade_0 = "0,a"
    next = "j,down,l"
    quit = "q"

    [ui]
    theme = "textual-light"

Binding ids are listed by ``goldset judge --help`` and in docs/judging.md. Bad TOML or a value of
the wrong type is bad input (one line, exit 2), not a traceback.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from goldset_tui import locations
from goldset_tui.errors import InputError


@dataclass(frozen=True)
class Config:
    keymap: dict[str, str] = field(default_factory=dict)
    theme: str | None = None


def load_config(path: Path | None = None) -> Config:
    path = locations.config_file() if path is None else path
    if not path.exists():
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise InputError(path, "config file is not UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        # Python 3.11's tomllib only puts the place in the message: "... (at line 3, column 8)".
        found = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        where = f" (column {found.group(2)})" if found else ""
        raise InputError(path, f"not valid TOML: {message}{where}", line=int(found.group(1)) if found else None) from None
    except OSError as exc:
        raise InputError(path, f"cannot read config: {exc.strerror or exc}") from None

    keymap_table = data.get("keymap", {})
    if not isinstance(keymap_table, dict):
        raise InputError(path, "[keymap] must be a table of binding id = \"keys\"", column="keymap")
    keymap: dict[str, str] = {}
    for binding_id, keys in keymap_table.items():
        if isinstance(keys, list) and all(isinstance(k, str) for k in keys):
            keys = ",".join(keys)
        if not isinstance(keys, str) or not keys.strip():
            raise InputError(path, f"keymap.{binding_id} must be a string of keys like \"j,down\"", column=f"keymap.{binding_id}")
        keymap[str(binding_id)] = keys.replace(" ", "")

    ui = data.get("ui", {})
    theme = ui.get("theme") if isinstance(ui, dict) else None
    if theme is not None and not isinstance(theme, str):
        raise InputError(path, "ui.theme must be a theme name", column="ui.theme")
    return Config(keymap=keymap, theme=theme)
