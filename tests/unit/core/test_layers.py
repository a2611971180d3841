"""The layers, as docs/DEVELOPING.md draws them: ``commands``, ``ui`` and ``serve`` call ``app``;
``app`` calls the core; nothing but ``cli.py`` imports ``commands``; ``app`` never imports Textual,
``ui`` or ``commands``, nor ``argparse`` (it takes plain typed values, never a command line); the
core imports none of ``app``, ``ui`` and ``commands``.

Read with ``ast`` from the source (nothing is imported), and every import counts: at module level,
inside a function and under ``if TYPE_CHECKING:`` (a lazy import is still a dependency). Before
the application layer, the home screen, the agreement screens' top k view and `goldset serve`'s
judging process reached into ``commands/`` for the functions that open judging and reviews.
"""

from __future__ import annotations

import ast
from pathlib import Path

import goldset_tui

PACKAGE = Path(goldset_tui.__file__).parent
FRONTS = ("goldset_tui.app", "goldset_tui.ui", "goldset_tui.commands", "goldset_tui.serve")
ENTRY = ("goldset_tui.cli", "goldset_tui.__main__")


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, name: str) -> set[str]:
    """Every module ``path`` names in an import, absolute; ``from a import b`` gives ``a`` and
    ``a.b`` (b may be a submodule)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            out.add(source)
            out.update(f"{source}.{alias.name}" for alias in node.names)
    return out


def within(module: str, *prefixes: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def broken_rules(root: Path) -> list[str]:
    """One line per import that crosses a layer the wrong way, under package folder ``root``."""
    commands, app, ui = (f"{root.name}.{n}" for n in ("commands", "app", "ui"))
    fronts = tuple(f.replace("goldset_tui", root.name, 1) for f in FRONTS)
    entry = tuple(e.replace("goldset_tui", root.name, 1) for e in ENTRY)
    found = []
    for path in sorted(root.rglob("*.py")):
        name = module_name(root, path)
        for target in sorted(imports_of(path, name)):
            if within(target, commands) and not within(name, commands, f"{root.name}.cli"):
                found.append(f"{name} imports {target}: only cli.py may import commands/")
            if within(name, app) and within(target, "textual", ui, commands):
                found.append(f"{name} imports {target}: app/ stays below the UI and commands")
            if within(name, app) and within(target, "argparse"):
                found.append(f"{name} imports {target}: app/ takes typed values, not arguments")
            core = not within(name, *fronts, *entry)
            if core and within(target, app, ui, commands):
                found.append(f"{name} imports {target}: the core imports no layer above it")
    return found


def test_the_layers_hold() -> None:
    assert broken_rules(PACKAGE) == []


def test_the_walk_finds_the_layers_it_checks() -> None:
    # The rules are about these folders: renamed or emptied, the test above would pass on nothing.
    names = {module_name(PACKAGE, p) for p in PACKAGE.rglob("*.py")}
    for layer in ("app", "ui", "commands", "serve"):
        assert any(within(n, f"goldset_tui.{layer}") for n in names), layer
    assert "goldset_tui.app.judging" in names and "goldset_tui.app.review" in names


def test_each_rule_would_notice_a_crossing(tmp_path: Path) -> None:
    root = tmp_path / "goldset_tui"
    files = {
        "__init__.py": "",
        "cli.py": "import goldset_tui.commands.judge\n",  # allowed: it discovers the commands
        "commands/__init__.py": "",
        "commands/judge.py": "from goldset_tui.app import judging\n",  # allowed
        "app/__init__.py": "",
        "app/judging.py": "def f():\n    from textual.screen import Screen\n",
        "app/review.py": "from ..ui import opening\n",
        "app/report.py": "import argparse\n",
        "ui/__init__.py": "",
        "ui/opening.py": "from goldset_tui.app.judging import f\n",  # allowed
        "ui/home.py": "def g():\n    from goldset_tui.commands.judge import prepare\n",
        "serve/__init__.py": "",
        "serve/child.py": "from goldset_tui import commands\n",
        "store/__init__.py": "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from goldset_tui.app.judging import f\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    crossings = {line.split(":")[0] for line in broken_rules(root)}
    assert crossings == {
        "goldset_tui.app.judging imports textual.screen",
        "goldset_tui.app.judging imports textual.screen.Screen",
        "goldset_tui.app.review imports goldset_tui.ui",
        "goldset_tui.app.review imports goldset_tui.ui.opening",
        "goldset_tui.app.report imports argparse",
        "goldset_tui.ui.home imports goldset_tui.commands.judge",
        "goldset_tui.ui.home imports goldset_tui.commands.judge.prepare",
        "goldset_tui.serve.child imports goldset_tui.commands",
        "goldset_tui.store imports goldset_tui.app.judging",
        "goldset_tui.store imports goldset_tui.app.judging.f",
    }
