"""The config file: keymap and theme from TOML; bad files are one-line input errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui import locations
from goldset_tui.config import Config, load_config
from goldset_tui.errors import InputError


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "config.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_missing_file_is_the_default() -> None:
    assert not locations.config_file().exists()
    assert load_config() == Config()


def test_keymap_and_theme(tmp_path: Path) -> None:
    cfg = load_config(
        write(
            tmp_path,
            '[keymap]\ngrade_0 = "0, a"\nnext = ["l", "down"]\n[ui]\ntheme = "textual-light"\n',
        )
    )
    assert cfg.keymap == {"grade_0": "0,a", "next": "l,down"}
    assert cfg.theme == "textual-light"


def test_default_location_is_under_the_config_dir() -> None:
    path = locations.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('[keymap]\nundo = "z"\n', encoding="utf-8")
    assert load_config().keymap == {"undo": "z"}


def test_bad_toml_names_file_and_line(tmp_path: Path) -> None:
    p = write(tmp_path, '[keymap]\nundo = "z"\nnext = \n')
    with pytest.raises(InputError) as err:
        load_config(p)
    assert err.value.line == 3 and str(p) in str(err.value)


@pytest.mark.parametrize(
    "text,column",
    [
        ("[keymap]\nundo = 3\n", "keymap.undo"),
        ('[keymap]\nundo = ""\n', "keymap.undo"),
        ("keymap = 1\n", "keymap"),
        ("[ui]\ntheme = 2\n", "ui.theme"),
    ],
)
def test_wrong_types_are_input_errors(tmp_path: Path, text: str, column: str) -> None:
    with pytest.raises(InputError) as err:
        load_config(write(tmp_path, text))
    assert err.value.column == column


def test_not_utf8(tmp_path: Path) -> None:
    p = tmp_path / "config.toml"
    p.write_bytes(b'[keymap]\nundo = "\xff"\n')
    with pytest.raises(InputError, match="UTF-8"):
        load_config(p)
