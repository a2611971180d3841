"""docs/DEVELOPING.md's module map matches the tree.

The map is how a newcomer finds their way: a path in it that does not exist sends them nowhere,
and a package missing from it is a room nobody told them about. Every ``goldset_tui/...`` path
written in backticks in the "Module map" and "Where to change X" sections must exist (a ``*``
must match at least one file; ``NAME`` stands for a file still to be written), and every package
of ``goldset_tui/`` (a folder with an ``__init__.py``) must be named in the map.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "DEVELOPING.md"
PACKAGE = ROOT / "goldset_tui"
SECTIONS = ("Module map", "Where to change X")
# Listed before the work that adds them is merged; once a path here exists it is checked like
# any other, and it can leave this set.
PENDING: set[str] = set()  # paths a branch in flight will add (none now)

PATH = re.compile(r"`((?:goldset_tui|tests)/[^`\s]*)`")


def section(title: str) -> str:
    text = PAGE.read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"docs/DEVELOPING.md has no '## {title}' section"
    return match.group(1)


def listed_paths(title: str) -> list[str]:
    return PATH.findall(section(title))


def exists(path: str) -> bool:
    if "*" in path:
        return any(ROOT.glob(path))
    return (ROOT / path).exists()


def test_the_map_lists_paths() -> None:
    # Guards the tests below, which pass on an empty list.
    assert len(listed_paths("Module map")) > 100
    assert len(listed_paths("Where to change X")) > 30


def test_every_listed_path_exists() -> None:
    missing = {
        title: [
            p for p in listed_paths(title) if "NAME" not in p and p not in PENDING and not exists(p)
        ]
        for title in SECTIONS
    }
    assert missing == {title: [] for title in SECTIONS}


def test_every_package_is_in_the_map() -> None:
    named = {p.rstrip("/") for p in listed_paths("Module map")}
    packages = sorted(
        str(init.parent.relative_to(ROOT))
        for init in PACKAGE.rglob("__init__.py")
        if "__pycache__" not in init.parts
    )
    assert packages, "no packages found"
    assert [p for p in packages if p not in named] == []


def test_every_root_module_is_in_the_map() -> None:
    # The loose modules at the package root are the ones a newcomer cannot place by folder.
    named = set(listed_paths("Module map"))
    modules = sorted(f"goldset_tui/{m.name}" for m in PACKAGE.glob("*.py"))
    assert [m for m in modules if m not in named and m != "goldset_tui/__init__.py"] == []
