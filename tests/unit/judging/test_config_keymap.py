"""Keymap mistakes are errors, not silence: an id no screen has, or a key another binding of the
same screen already uses, is one line naming the config file, the line and the key (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui import locations
from goldset_tui.cli import main
from goldset_tui.config import check_keymap, load_config
from goldset_tui.errors import InputError
from goldset_tui.ui.app import binding_table, checked_config

SCREENS = {
    "judge screen": {
        "next": ("j", "down"),
        "prev": ("k", "up"),
        "grade_1": ("1",),
        "app.quit": ("ctrl+q",),
    },
    "home screen": {"home.review": ("v",), "app.quit": ("ctrl+q",)},
}
KNOWN = {"next", "prev", "grade_1", "home.review"}


def config_with(tmp_path: Path, keymap: str):
    path = tmp_path / "config.toml"
    path.write_text('# mine\n[ui]\ntheme = "textual-dark"\n\n[keymap]\n' + keymap, encoding="utf-8")
    return load_config(path)


def test_unknown_id_names_file_line_and_key(tmp_path: Path) -> None:
    config = config_with(tmp_path, 'next = "l"\nnxet_query = "x"\n')
    with pytest.raises(InputError) as err:
        check_keymap(config, SCREENS, KNOWN)
    assert err.value.line == 7 and err.value.column == "keymap.nxet_query"
    assert str(err.value).startswith(f"{tmp_path / 'config.toml'}:7: column 'keymap.nxet_query': ")
    assert "nxet_query" in str(err.value)


def test_unknown_id_suggests_a_close_one(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="did you mean next"):
        check_keymap(config_with(tmp_path, 'nxet = "l"\n'), SCREENS, KNOWN)


def test_key_already_bound_on_the_same_screen(tmp_path: Path) -> None:
    config = config_with(tmp_path, 'grade_1 = "j"\n')
    with pytest.raises(InputError) as err:
        check_keymap(config, SCREENS, KNOWN)
    assert err.value.line == 6 and err.value.column == "keymap.grade_1"
    assert "'j'" in str(err.value) and "next" in str(err.value) and "judge screen" in str(err.value)


def test_a_fixed_app_key_cannot_be_taken(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="'ctrl\\+q'.*app.quit.*choose another key"):
        check_keymap(config_with(tmp_path, 'home.review = "ctrl+q"\n'), SCREENS, KNOWN)


def test_two_remapped_ids_on_one_key(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="'x'"):
        check_keymap(config_with(tmp_path, 'next = "x"\nprev = "x"\n'), SCREENS, KNOWN)


@pytest.mark.parametrize(
    "keymap",
    [
        'grade_1 = "j"\nnext = "l,down"\n',  # the old owner moved away: no clash
        'next = "k"\nprev = "j"\n',  # swapped
        'home.review = "j"\n',  # j is next on another screen only
        'next = "j,down"\n',  # the defaults again
    ],
)
def test_consistent_keymaps_pass(tmp_path: Path, keymap: str) -> None:
    check_keymap(config_with(tmp_path, keymap), SCREENS, KNOWN)


def test_real_screens_know_every_documented_id() -> None:
    table, known = binding_table()
    judge = table["judge screen"]
    assert judge["next"] == ("j", "down") and judge["help"] == ("question_mark",)
    assert {"grade_0", "next", "quit", "home.review", "report_quit", "spotcheck.agree"} <= known
    assert (
        "ctrl+p" in judge["the command palette"]
        and "ctrl+p" in table["home screen"]["the command palette"]
    )


def write_user_config(text: str) -> Path:
    path = locations.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_app_config_check_against_the_real_screens() -> None:
    write_user_config('[keymap]\ngrade_1 = "j"\n')
    with pytest.raises(InputError, match="'j'.*next.*judge screen"):
        checked_config()
    write_user_config('[keymap]\nhelp = "?"\nsearch = "question_mark"\n')  # "?" is question_mark
    with pytest.raises(InputError, match="question_mark"):
        checked_config()
    write_user_config('[keymap]\ngrade_1 = "j"\nnext = "l"\nprev = "h"\n')
    assert checked_config().keymap == {"grade_1": "j", "next": "l", "prev": "h"}


def test_goldset_exits_2_with_one_line_before_any_screen(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = write_user_config('[keymap]\nnosuchid = "x"\n')
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"goldset: error: {path}:2: column 'keymap.nosuchid': ")
