"""The user's config file (TOML under ``locations.config_file()``): key remapping and theme.

    [keymap]            # binding id = keys (comma-separated alternatives), Textual's keymap
    grade_0 = "0,a"
    next = "j,down,l"
    quit = "q"

    [ui]
    theme = "textual-light"
    text_width = 100    # reading width of documents in columns, 0 for the whole width (key w)
    render = "plain"    # how documents are shown: plain, markdown or rst (--render)
    highlight = "forms" # query terms in documents: forms (rotate: Rotation, keys), words, off (key t)

Binding ids are listed by ``goldset judge --help`` and in docs/judging.md. Bad TOML or a value of
the wrong type is bad input (one line, exit 2), not a traceback; so are an id no screen has and a
key that another binding of the same screen already uses (``check_keymap``, called by the app
with the screens' bindings: a silent mistake would leave the labeller pressing a dead key).
"""

from __future__ import annotations

import difflib
import re
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
    text_width: int | None = None  # None: the screen's default
    render: str | None = None
    highlight: str | None = None  # None: the screen's default (word forms)
    # Where the keymap came from, so a mistake found later can name the file and the line.
    path: Path | None = field(default=None, compare=False)
    keymap_lines: dict[str, int] = field(default_factory=dict, compare=False)
    # The file belongs to an account several people use (the server's, under goldset serve): what
    # one changes on screen (w's reading width) lasts for their session and is never written.
    shared: bool = field(default=False, compare=False)


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
    text_width = ui.get("text_width") if isinstance(ui, dict) else None
    if text_width is not None and not valid_text_width(text_width):
        raise InputError(
            path,
            f"ui.text_width must be 0 (the whole width) or a number of columns from "
            f"{MIN_TEXT_WIDTH} to {MAX_TEXT_WIDTH}, got {text_width!r}",
            column="ui.text_width",
        )
    render = ui.get("render") if isinstance(ui, dict) else None
    if render is not None and render not in RENDERS:
        raise InputError(
            path,
            f"ui.render must be one of {', '.join(RENDERS)}, got {render!r}",
            column="ui.render",
        )
    highlight = ui.get("highlight") if isinstance(ui, dict) else None
    if highlight is not None and highlight not in HIGHLIGHTS:
        raise InputError(
            path,
            f"ui.highlight must be one of {', '.join(HIGHLIGHTS)}, got {highlight!r}",
            column="ui.highlight",
        )
    return Config(
        keymap=keymap,
        theme=theme,
        text_width=text_width,
        render=render,
        highlight=highlight,
        path=path,
        keymap_lines=_keymap_lines(source, keymap),
    )


# How documents can be shown (goldset judge --render); the screens implement them.
RENDERS = ("plain", "markdown", "rst")
# How query terms are highlighted in documents (key t cycles them): their word forms too, whole
# words only, or not at all.
HIGHLIGHTS = ("forms", "words", "off")
MIN_TEXT_WIDTH, MAX_TEXT_WIDTH = 20, 1000


def valid_text_width(value: object) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and (value == 0 or MIN_TEXT_WIDTH <= value <= MAX_TEXT_WIDTH)
    )


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


_UI_HEADER = re.compile(r"^\s*\[\s*ui\s*\]\s*(#.*)?$")
_ANY_HEADER = re.compile(r"^\s*\[")


def remember_text_width(width: int, path: Path | None = None) -> Path:
    """Write ``[ui] text_width = width`` into the user's config file, keeping every other line,
    comment and key as written (only that one line changes or is added). The result is parsed
    before it replaces the file, which is swapped in whole: a config goldset cannot edit safely
    (a ``ui`` written as an inline table, say) is left alone and an InputError says why."""
    if not valid_text_width(width):
        raise ValueError(f"not a reading width: {width!r}")
    return _remember_ui("text_width", width, str(width), path)


def remember_highlight(mode: str, path: Path | None = None) -> Path:
    """``[ui] highlight = "mode"``, written as ``remember_text_width`` writes the width."""
    if mode not in HIGHLIGHTS:
        raise ValueError(f"not a highlight mode: {mode!r}")
    return _remember_ui("highlight", mode, f'"{mode}"', path)


def _remember_ui(key: str, value: object, written: str, path: Path | None) -> Path:
    path = locations.config_file() if path is None else path
    try:
        source = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read config: {exc}") from None
    updated = _with_ui_value(source, key, written)
    data = parse_toml(path, updated.encode("utf-8"), what="config file")
    if not isinstance(data.get("ui"), dict) or data["ui"].get(key) != value:
        raise InputError(path, f"could not record ui.{key} here; set it by hand in [ui]")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".part")
        partial.write_text(updated, encoding="utf-8")
        partial.replace(path)  # never a half-written config
    except OSError as exc:
        raise InputError(path, f"cannot write config: {exc.strerror or exc}") from None
    return path


def _with_ui_value(source: str, key: str, value: str) -> str:
    lines = source.split("\n")
    setting = re.compile(rf"^(\s*{re.escape(key)}\s*=\s*)([^#]*?)(\s*#.*)?$")
    start = next((i for i, line in enumerate(lines) if _UI_HEADER.match(line)), None)
    if start is None:
        tail = "" if not source or source.endswith("\n") else "\n"
        gap = "\n" if source.strip() else ""
        return f"{source}{tail}{gap}[ui]\n{key} = {value}\n"
    end = next((i for i in range(start + 1, len(lines)) if _ANY_HEADER.match(lines[i])), len(lines))
    for i in range(start + 1, end):
        found = setting.match(lines[i])
        if found:
            lines[i] = f"{found.group(1)}{value}{found.group(3) or ''}"
            return "\n".join(lines)
    last = max((i for i in range(start, end) if lines[i].strip()), default=start)
    lines.insert(last + 1, f"{key} = {value}")
    return "\n".join(lines)
