"""Start-up: `goldset --help` and `--version` import no command module (nor Polars), and a
command imports its own module only; the static listing that makes this possible stays true."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from goldset_tui.cli import HELP_ORDER, command_modules, from_source

PROBE = r"""
import json, sys
from goldset_tui.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(m for m in sys.modules if m.startswith(("goldset_tui.commands.", "polars")))))
"""


def imported_after(*argv: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_help_lines_read_as_text_are_the_modules_own() -> None:
    # `goldset --help` lists the HELP lines read from the sources, without importing them: they
    # must be what the modules say, each module named as its file, and none should need an import.
    modules = command_modules()
    assert [m.NAME for m in modules] == list(HELP_ORDER)
    for module in modules:
        assert from_source(module.__name__.rpartition(".")[2]) == (module.NAME, module.HELP)


@pytest.mark.parametrize("argv", [["--version"], ["--help"]])
def test_version_and_help_import_no_command(argv: list[str]) -> None:
    assert imported_after(*argv) == []


def test_a_command_imports_only_its_own_module() -> None:
    loaded = imported_after("eval", "--help")
    assert "goldset_tui.commands.fuse" not in loaded and "goldset_tui.commands.pool" not in loaded


def test_eval_imports_neither_the_store_nor_other_commands() -> None:
    peers = Path(__file__).resolve().parents[2] / "data" / "peers" / "trec_eval"
    probe = PROBE.replace('("goldset_tui.commands.", "polars")', '("goldset_tui.", "platformdirs")')
    argv = ["eval", str(peers / "qrels.test"), str(peers / "results.test"), "-m", "AP"]
    done = subprocess.run(
        [sys.executable, "-c", probe, *argv], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert "goldset_tui.commands.eval" in loaded
    assert not [m for m in loaded if m.startswith(("goldset_tui.store", "platformdirs"))]
    assert "goldset_tui.commands.fuse" not in loaded and "goldset_tui.commands.pool" not in loaded
