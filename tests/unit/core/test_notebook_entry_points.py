"""``help(goldset_tui)`` tells a notebook user where to start, and every name it gives resolves.

Before, the package docstring said the core could be used from a notebook and named no function;
``goldset_tui.report`` and ``goldset_tui.agreement`` said nothing of their entry points, so
``help()`` and ``dir()`` led nowhere (``goldset_tui.agreement`` had no docstring at all)."""

from __future__ import annotations

import importlib
import re

import goldset_tui


def _resolve(dotted: str) -> object:
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def test_the_package_docstring_names_entry_points_that_exist():
    names = re.findall(r"``(goldset_tui(?:\.\w+)+)``", goldset_tui.__doc__ or "")
    wanted = {"eval.mean_scores", "eval.compare", "report.pipeline.compute_report"}
    assert {n.removeprefix("goldset_tui.") for n in names} >= wanted | {
        "agreement.sources.from_qrels"
    }
    for name in names:
        assert _resolve(name) is not None, name  # a module (goldset_tui.ui) or a function


def test_report_and_agreement_say_where_to_start():
    for package, entry in (("report", "compute_report"), ("agreement", "agreement_report")):
        doc = importlib.import_module(f"goldset_tui.{package}").__doc__ or ""
        assert entry in doc, package
