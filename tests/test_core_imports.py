"""The core never imports Textual: a notebook user gets the numbers without a terminal UI.

Runs in a fresh interpreter, because this test process has Textual loaded already.
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import goldset_tui

SCRIPT = r"""
import importlib, pkgutil, sys
import goldset_tui
bad = []
for info in pkgutil.walk_packages(goldset_tui.__path__, "goldset_tui."):
    name = info.name
    if name.startswith("goldset_tui.ui") or name in {"goldset_tui.__main__"}:
        continue
    importlib.import_module(name)
    if "textual" in sys.modules:
        bad.append(name)
        break
print("CORE", len([m for m in sys.modules if m.startswith("goldset_tui")]))
print("BAD", bad)
"""


def core_modules() -> list[str]:
    return [
        info.name
        for info in pkgutil.walk_packages(goldset_tui.__path__, "goldset_tui.")
        if not info.name.startswith("goldset_tui.ui")
    ]


def test_core_modules_never_import_textual() -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "BAD []" in out.stdout, out.stdout
    assert len(core_modules()) >= 5  # the walk found the core, not an empty package


def test_the_check_would_notice_textual() -> None:
    # The same check, pointed at a UI module, must fail: proves the test can fail.
    probe = "import sys, goldset_tui.ui.app; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "True", out.stderr
