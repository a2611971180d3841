"""Every benchmark that needs the bench extra says so in one line and exits 2 without it, instead
of a traceback halfway through (the README's install has no numpy, pytrec_eval, ranx...)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "bench"
# What the bench extra brings that goldset itself does not.
EXTRA = {"numpy", "scipy", "pytrec_eval", "ranx", "ir_measures", "krippendorff", "sklearn"}
# What the serve extra brings (textual-serve, and aiohttp with it): a bench of `goldset serve`.
EXTRA |= {"aiohttp", "textual_serve"}


def imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_every_script_needing_the_extra_checks_for_it_first() -> None:
    needing = [p for p in sorted(BENCH.glob("*.py")) if imported(p) & EXTRA]
    assert needing, "no bench script imports the extra: this test would check nothing"
    for path in needing:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = {
            node.func.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        assert "require" in calls, f"{path.name} imports the bench extra without require()"


def test_a_missing_module_is_one_line_and_exit_2(tmp_path: Path) -> None:
    script = tmp_path / "some_bench.py"
    script.write_text(
        f"import sys\nsys.path.insert(0, {str(BENCH)!r})\n"
        "from _needs import require\nrequire('numpy', 'no_such_module_for_goldset')\n"
        "print('ran')\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "some_bench.py" in done.stderr and "no_such_module_for_goldset" in done.stderr
    assert "numpy" not in done.stderr.split("missing:")[1]  # only what is missing is named
    assert "pip install -e '.[bench]'" in done.stderr
