"""No import cycle inside goldset_tui.

Every import counts: at module level, inside a function (a lazy import still makes the two
modules depend on each other; it only hides the cycle until the function runs), and under
``if TYPE_CHECKING:`` (a cycle for the type checker is a cycle in the design). The graph is read
with ``ast`` from the source, so nothing is imported. An import names the submodule when it is
one (``from goldset_tui.ui.widgets import judge_parts``), else the package; the implicit import of
a parent package is not an edge (Python runs a package's ``__init__`` before its submodules).
"""

from __future__ import annotations

import ast
from pathlib import Path

import goldset_tui

PACKAGE = Path(goldset_tui.__file__).parent


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(tree: ast.Module, name: str, is_package: bool, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that ``name`` imports anywhere in its source."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from . import x, from ..store import y
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                if sub in modules:
                    out.add(sub)
                elif source in modules:
                    out.add(source)
    out.discard(name)
    return out


def import_graph(root: Path) -> dict[str, set[str]]:
    files = {module_name(root, p): p for p in sorted(root.rglob("*.py"))}
    names = set(files)
    return {
        name: imported(
            ast.parse(p.read_text(encoding="utf-8")), name, p.name == "__init__.py", names
        )
        for name, p in files.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_goldset_tui_has_no_import_cycle() -> None:
    graph = import_graph(PACKAGE)
    assert len(graph) > 50  # the walk found the package
    assert cycles(graph) == []


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "pkg"


def test_a_cycle_through_a_function_level_import_is_found(tmp_path: Path) -> None:
    root = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg.b import thing\n",
            "pkg/b.py": "def thing():\n    from pkg import a\n    return a\n",
            "pkg/c.py": "import pkg.a\n",
        },
    )
    assert cycles(import_graph(root)) == [["pkg.a", "pkg.b"]]


def test_a_cycle_through_type_checking_and_relative_imports_is_found(tmp_path: Path) -> None:
    root = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/store/__init__.py": "",
            "pkg/store/project.py": "from .writer import Writer\n",
            "pkg/store/writer.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from ..store.project import Project\n"
            ),
        },
    )
    assert cycles(import_graph(root)) == [["pkg.store.project", "pkg.store.writer"]]


def test_a_package_importing_its_own_submodules_is_not_a_cycle(tmp_path: Path) -> None:
    root = _write(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.a import x\n",
            "pkg/a.py": "x = 1\n",
            "pkg/b.py": "from pkg import a\nfrom pkg.a import x\n",
        },
    )
    assert cycles(import_graph(root)) == []
