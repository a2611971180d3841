"""Every public name of goldset_tui.eval has its real signature for a type checker.

The package hands its names out lazily (a module ``__getattr__``), which a type checker sees as
returning ``Any``: ``x: int = mean_scores("not a frame", 3, None)`` passed ``mypy --strict``. The
``TYPE_CHECKING`` imports in ``goldset_tui/eval/__init__.py`` give mypy the real functions. The
check runs the venv's mypy in a subprocess, once, on the notebook-style example beside this file
and on that bad line, and reads which file each error is in.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import goldset_tui
from goldset_tui.eval import __all__ as public_names
from goldset_tui.eval import mean_scores

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE / "notebook_example.py"
SOURCE_ROOT = Path(goldset_tui.__file__).resolve().parents[1]  # the goldset_tui under test
BAD = 'from goldset_tui.eval import mean_scores\n\nx: int = mean_scores("not a frame", 3, None)\n'


@pytest.fixture(scope="module")
def mypy_errors(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """mypy --strict's error lines, by file name. ``--follow-imports=silent``: goldset's and
    Polars' modules are read for their types, and only the two files given are judged."""
    tmp = tmp_path_factory.mktemp("mypy")
    (tmp / "bad_example.py").write_text(BAD)
    (tmp / "mypy.ini").write_text("[mypy]\n")  # not the project's settings: a user's defaults
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--strict",
        "--follow-imports=silent",
        "--config-file",
        str(tmp / "mypy.ini"),
        "--cache-dir",
        str(tmp / "cache"),
        "--no-error-summary",
        "--show-error-codes",
        str(EXAMPLE),
        str(tmp / "bad_example.py"),
    ]
    env = dict(os.environ)
    if SOURCE_ROOT.name != "site-packages":  # a checkout (mypy refuses site-packages here)
        env["MYPYPATH"] = str(SOURCE_ROOT)
    out = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp, check=False)
    assert out.returncode in (0, 1), out.stderr  # 2 is mypy failing to run at all
    errors: dict[str, list[str]] = {"notebook_example.py": [], "bad_example.py": []}
    for line in out.stdout.splitlines():
        match = re.match(r"(.+?):\d+: error: ", line)
        if match:
            errors.setdefault(Path(match.group(1)).name, []).append(line)
    return errors


def test_mypy_strict_passes_on_the_notebook_example(mypy_errors):
    assert mypy_errors["notebook_example.py"] == []
    assert set(mypy_errors) == {"notebook_example.py", "bad_example.py"}


def test_mypy_strict_rejects_a_call_with_the_wrong_types(mypy_errors):
    found = "\n".join(mypy_errors["bad_example.py"])
    # The run (3), the measures (None), and the result (a dict of means, not an int).
    assert 'Argument 2 to "mean_scores" has incompatible type "int"' in found
    assert 'Argument 3 to "mean_scores" has incompatible type "None"' in found
    assert 'has type "dict[str, float]", variable has type "int"' in found


def test_every_public_name_is_re_exported_for_the_type_checker():
    # The TYPE_CHECKING block names each lazily exported name once, as itself.
    init = (SOURCE_ROOT / "goldset_tui" / "eval" / "__init__.py").read_text()
    block = init.split("if TYPE_CHECKING:", 1)[1].split("\n\n", 1)[0]
    typed = set(re.findall(r"import (\w+) as (\w+)", block))
    assert {a for a, b in typed if a == b} == set(public_names)


def test_the_example_runs_and_gives_the_api_s_numbers():
    spec = importlib.util.spec_from_file_location("notebook_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    data = HERE.parents[2] / "sample_data"
    got = module.main(data)
    qrels, run = data / "judgments" / "alice.qrels", data / "runs" / "bm25.run"
    assert got["nDCG@10"] == mean_scores(qrels, run, "nDCG@10")["nDCG@10"]
    assert 0.0 < got["p_value"] <= 1.0
