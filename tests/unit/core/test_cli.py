"""The command line's own contract: help for every command, and one line + exit 2 on errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from goldset_tui import __version__
from goldset_tui.cli import HELP_ORDER, build_parser, command_modules, main


def test_every_command_is_discovered_and_ordered() -> None:
    names = [m.NAME for m in command_modules()]
    assert sorted(names) == sorted(HELP_ORDER)
    assert names == list(HELP_ORDER)


@pytest.mark.parametrize("name", HELP_ORDER)
def test_every_command_has_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([name, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: goldset {name}")


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--version"])
    assert capsys.readouterr().out.strip() == f"goldset {__version__}"


def test_os_error_on_output_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A fused run written to a path that is a directory: the OS refuses, the user gets one line.
    for name in ("a", "b"):
        (tmp_path / f"{name}.run").write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    status = main(["fuse", str(tmp_path / "a.run"), str(tmp_path / "b.run"), "-o", str(out_dir)])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1
    # The path the user gave, not the temporary file the write went through.
    assert err.startswith(f"goldset: error: {out_dir}: ")
    assert not list(tmp_path.glob(".tmp-*"))


def test_run_names_are_compared_after_trimming_spaces(tmp_path: Path) -> None:
    from goldset_tui.app.runs import parse_run_specs
    from goldset_tui.errors import InputError

    assert parse_run_specs([f"a ={tmp_path / 'x.run'}"]) == {"a": tmp_path / "x.run"}
    for specs in (
        [f"a ={tmp_path / 'x.run'}", f"a={tmp_path / 'y.run'}"],
        [f"a={tmp_path / 'y.run'}", f"a ={tmp_path / 'x.run'}"],
    ):
        with pytest.raises(InputError, match="given twice"):
            parse_run_specs(specs)


def test_an_unknown_option_is_refused_under_the_commands_own_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # docs/sample_data.md said `goldset eval --qrels`: the refusal came under the top parser's
    # `usage: goldset [-h] [--version] COMMAND ...`, which shows none of eval's arguments.
    with pytest.raises(SystemExit) as exit_info:
        main(["eval", "--qrels", "alice.qrels", "bm25.run"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: goldset eval ")
    assert err.splitlines()[-1] == "goldset eval: error: unrecognized arguments: --qrels"
