"""Evaluation: trec_eval-exact measures, paired statistics and run fusion, usable from a notebook.

    from goldset_tui.eval import evaluate, mean_scores, paired_comparison, rrf
    from goldset_tui.io.trec import read_qrels, read_run

    qrels, run = read_qrels("qrels.txt"), read_run("bm25.run")
    evaluate(qrels, run, ["nDCG@10", "AP", "RR", "R@100"])   # query_id, measure, value
    mean_scores(qrels, run, ["nDCG@10"])                      # {"nDCG@10": 0.41...}
    expand_measures("P.5,10")                                 # ["P@5", "P@10"]: trec_eval's -m forms

Imports are lazy so that ``import goldset_tui.eval.strata`` does not pay for the rest.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "evaluate": "metrics",
    "evaluate_wide": "metrics",
    "mean_scores": "metrics",
    "aggregate": "metrics",
    "relevant_queries": "metrics",
    "parse_measure": "measures",
    "parse_measures": "measures",
    "expand_measures": "trec_forms",
    "Measure": "measures",
    "paired_comparison": "stats",
    "PairedResult": "stats",
    "rrf": "fusion",
    "combsum": "fusion",
    "combmnz": "fusion",
    "fuse": "fusion",
    "query_sets": "querysets",
    "QuerySets": "querysets",
    "cut_run": "querysets",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
