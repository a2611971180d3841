"""The user's config file (TOML under ``locations.config_file()``): key remapping and theme.

    [keymap]            # binding id = keys (comma-separated alternatives), Textual's keymap
    grade_0 = "0,a"
    next = "j,down,l"
    quit = "q"

    [ui]
    theme = "textual-light"

Binding ids are listed by ``goldset judge --help`` and in docs/judging.md. Bad TOML or a value of
the wrong type is bad input (one line, exit 2), not a traceback; so are an id no screen has and a
key that another binding of the same screen already uses (``check_keymap``, called by the app
with the screens' bindings: a silent mistake would leave the labeller pressing a dead key).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from goldset_tui import locations
from goldset_tui.errors import InputError
from goldset_tui.io.tomlfile import parse_toml


@dataclass(frozen=True)
class Config:
    keymap: dict[str, str] = field(default_factory=dict)
    theme: str | None = None
    # Where the keymap came from, so a mistake found later can name the file and the line.
    path: Path | None = field(default=None, compare=False)
    keymap_lines: dict[str, int] = field(default_factory=dict, compare=False)


def load_config(path: Path | None = None) -> Config:
    path = locations.config_file() if path is None else path
    if not path.exists():
        return Config()
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read config: {exc.strerror or exc}") from None
    data = parse_toml(path, raw, what="config file")
    source = raw.decode("utf-8")  # valid: parse_toml checked it

    keymap_table = data.get("keymap", {})
    if not isinstance(keymap_table, dict):
        raise InputError(path, '[keymap] must be a table of binding id = "keys"', column="keymap")
    keymap: dict[str, str] = {}
    for binding_id, keys in _flat(keymap_table).items():
        if isinstance(keys, list) and all(isinstance(k, str) for k in keys):
            keys = ",".join(keys)
        if not isinstance(keys, str) or not keys.strip():
            raise InputError(
                path,
                f'keymap.{binding_id} must be a string of keys like "j,down"',
                column=f"keymap.{binding_id}",
            )
        keymap[str(binding_id)] = keys.replace(" ", "")

    ui = data.get("ui", {})
    theme = ui.get("theme") if isinstance(ui, dict) else None
    if theme is not None and not isinstance(theme, str):
        raise InputError(path, "ui.theme must be a theme name", column="ui.theme")
    return Config(keymap=keymap, theme=theme, path=path, keymap_lines=_keymap_lines(source, keymap))


def _flat(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Ids with dots written bare (``home.review = "v"``) are nested tables to TOML: join them back."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        if isinstance(value, dict):
            flat.update(_flat(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _keymap_lines(source: str, keymap: Mapping[str, str]) -> dict[str, int]:
    """The line of each entry of the [keymap] table (tomllib gives no positions); an entry written
    another way (an inline table, a dotted key) simply gets no line number."""
    lines: dict[str, int] = {}
    in_keymap = False
    for number, raw in enumerate(source.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("["):
            in_keymap = line.split("#", 1)[0].replace(" ", "") == "[keymap]"
        elif in_keymap and "=" in line:
            key = line.split("=", 1)[0].strip().strip("\"'")
            if key in keymap:
                lines.setdefault(key, number)
    return lines


def check_keymap(
    config: Config, screens: Mapping[str, Mapping[str, Sequence[str]]], known_ids: set[str]
) -> None:
    """Raise InputError for a keymap id no binding has, or a key two bindings of one screen share.

    ``screens`` maps a screen's name to its bindings (binding id, or a description for the fixed
    ones such as ctrl+q, to default keys); ``known_ids`` are every remappable id. Keys are compared
    as given: the app normalises single characters ("?" -> "question_mark") on both sides first.
    """
    if not config.keymap:
        return
    path = config.path

    def fail(binding_id: str, message: str) -> InputError:
        return InputError(
            path, message, line=config.keymap_lines.get(binding_id), column=f"keymap.{binding_id}"
        )

    for binding_id in config.keymap:
        if binding_id not in known_ids:
            close = difflib.get_close_matches(binding_id, sorted(known_ids), n=3)
            hint = (
                f" (did you mean {', '.join(close)}?)"
                if close
                else " (the ids are listed in docs/judging.md)"
            )
            raise fail(binding_id, f"no screen has a binding with id {binding_id!r}{hint}")

    for screen, bindings in screens.items():
        owners: dict[str, list[str]] = {}
        for name, default_keys in bindings.items():
            keys = config.keymap[name].split(",") if name in config.keymap else list(default_keys)
            for key in dict.fromkeys(k for k in keys if k):
                owners.setdefault(key, []).append(name)
        for key, names in owners.items():
            remapped = [n for n in names if n in config.keymap]
            if len(names) > 1 and remapped:
                mine = remapped[0]
                other = next(n for n in names if n != mine)
                fix = (
                    f"remap {other} too, or choose another key"
                    if other in known_ids
                    else "choose another key"
                )
                raise fail(
                    mine, f"key {key!r} is already the key of {other} on the {screen}: {fix}"
                )
