"""The reading width the judging screen's `w` chose is remembered in the config file: one line
changes or is added, every other line, comment and key stays as written, and a config goldset
cannot edit safely is left alone with a one-line reason."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from goldset_tui.config import load_config, remember_text_width
from goldset_tui.errors import InputError


def test_a_new_config_file_gets_a_ui_table(tmp_path: Path) -> None:
    path = tmp_path / "goldset" / "config.toml"
    remember_text_width(88, path)
    assert path.read_text() == "[ui]\ntext_width = 88\n"
    assert load_config(path).text_width == 88


def test_only_the_one_line_changes(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    before = (
        '# my keys\n[keymap]\nnext = "l,down"  # vim-ish\n\n'
        '[ui]\ntheme = "textual-light"\ntext_width = 72   # narrow\n\n[other]\nx = 1\n'
    )
    path.write_text(before)
    remember_text_width(0, path)
    after = path.read_text()
    assert after == before.replace("text_width = 72   # narrow", "text_width = 0   # narrow")
    config = load_config(path)
    assert (config.text_width, config.theme, config.keymap) == (
        0,
        "textual-light",
        {"next": "l,down"},
    )


def test_added_under_an_existing_ui_table(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[ui]\ntheme = "nord"\n\n[keymap]\nmore = "m"\n')
    remember_text_width(120, path)
    assert path.read_text() == '[ui]\ntheme = "nord"\ntext_width = 120\n\n[keymap]\nmore = "m"\n'


def test_a_config_it_cannot_edit_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    before = 'ui = { theme = "nord" }\n'
    path.write_text(before)
    with pytest.raises(InputError):
        remember_text_width(88, path)
    assert path.read_text() == before
    assert tomllib.loads(path.read_text())["ui"] == {"theme": "nord"}
