"""Evaluation: trec_eval-exact measures, paired statistics and run fusion, usable from a notebook.

    from goldset_tui.eval import evaluate, mean_scores, paired_comparison, rrf

    evaluate("qrels.txt", "bm25.run", ["nDCG@10", "AP", "RR", "R@100"])  # query_id, measure, value
    mean_scores(qrels, run, ["nDCG@10"])                      # {"nDCG@10": 0.41...}
    expand_measures("P.5,10")                                 # ["P@5", "P@10"]: trec_eval's -m forms

Qrels and runs may be Polars or pandas frames, pytrec_eval-style dicts, ir_measures' named
tuples or paths (``eval.inputs``); the numbers are ``goldset eval``'s, and
``aggregate(evaluate(...))`` is its ``all`` line (``eval.notebook``; docs/notebook.md).

Imports are lazy so that ``import goldset_tui.eval.strata`` does not pay for the rest, and
``expand_measures`` runs without Polars. The ``TYPE_CHECKING`` imports below give a type checker
the real signatures of the names the lazy ``__getattr__`` hands out (without them every name
here was ``Any`` to mypy, and any call type-checked).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goldset_tui.eval.inputs import QrelsInput as QrelsInput
    from goldset_tui.eval.inputs import RunInput as RunInput
    from goldset_tui.eval.inputs import qrels_frame as qrels_frame
    from goldset_tui.eval.inputs import run_frame as run_frame
    from goldset_tui.eval.measures import Measure as Measure
    from goldset_tui.eval.measures import parse_measure as parse_measure
    from goldset_tui.eval.measures import parse_measures as parse_measures
    from goldset_tui.eval.notebook import aggregate as aggregate
    from goldset_tui.eval.notebook import combmnz as combmnz
    from goldset_tui.eval.notebook import combsum as combsum
    from goldset_tui.eval.notebook import compare as compare
    from goldset_tui.eval.notebook import cut_run as cut_run
    from goldset_tui.eval.notebook import evaluate as evaluate
    from goldset_tui.eval.notebook import evaluate_wide as evaluate_wide
    from goldset_tui.eval.notebook import fuse as fuse
    from goldset_tui.eval.notebook import mean_scores as mean_scores
    from goldset_tui.eval.notebook import query_sets as query_sets
    from goldset_tui.eval.notebook import relevant_queries as relevant_queries
    from goldset_tui.eval.notebook import rrf as rrf
    from goldset_tui.eval.querysets import QuerySets as QuerySets
    from goldset_tui.eval.stats import PairedResult as PairedResult
    from goldset_tui.eval.stats import paired_comparison as paired_comparison
    from goldset_tui.eval.trec_forms import expand_measures as expand_measures

_EXPORTS = {
    "evaluate": "notebook",
    "evaluate_wide": "notebook",
    "mean_scores": "notebook",
    "aggregate": "notebook",
    "relevant_queries": "notebook",
    "parse_measure": "measures",
    "parse_measures": "measures",
    "expand_measures": "trec_forms",
    "Measure": "measures",
    "paired_comparison": "stats",
    "PairedResult": "stats",
    "rrf": "notebook",
    "combsum": "notebook",
    "combmnz": "notebook",
    "compare": "notebook",
    "fuse": "notebook",
    "query_sets": "notebook",
    "QuerySets": "querysets",
    "cut_run": "notebook",
    "QrelsInput": "inputs",
    "RunInput": "inputs",
    "qrels_frame": "inputs",
    "run_frame": "inputs",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    if name in _EXPORTS:
        value: object = getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
