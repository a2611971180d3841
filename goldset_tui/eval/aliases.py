"""Other tools' measure names, read as aliases of goldset's canonical (ir_measures) names.

``resolve(text)`` turns a trec_eval name (``map``, ``ndcg_cut_10``, ``P_10``, ``P.10``,
``iprec_at_recall_0.10``, ``set_P``), an ir_measures alias (``MAP``, ``NDCG@10``, ``Recall@100``)
or a ranx name (``ndcg@10``, ``mrr@10``, ``map@100``, ``precision@10``, ``recall@100``) into the
canonical text and the tool it came from, or None. ``trec_eval_name(measure)`` goes the other
way, for ``--trec-eval-compat`` output. Nothing here lists or computes anything: every name is
in the measure's registry entry (``goldset_tui.measures``); this module reads their syntax.

Only names whose meaning is the same are aliases: ranx's ``ndcg`` has the grade as gain, as
trec_eval's and goldset's nDCG (its ``ndcg_burges`` is ``dcg='exp-log2'``); ranx's ``mrr@k``
is RR@k. A name that would only be close (ranx's ``hits@k``, ``f1@k``) is not accepted.
"""

from __future__ import annotations

import re

from goldset_tui import measures as registry
from goldset_tui.measures.entry import RanxName
from goldset_tui.measures.entry import trec_eval_name as trec_eval_name  # re-exported

_TREC_SYNTAX = re.compile(r"^(?P<base>[A-Za-z0-9_]+?)(?:[_.](?P<param>\d+(?:\.\d+)?|\.\d+))?$")
_RANX_SYNTAX = re.compile(r"^(?P<base>[a-z_-]+)(?:@(?P<cutoff>\d+))?$")


def _trec_names() -> dict[str, tuple[str, str]]:
    """trec_eval: base name -> (canonical name, how its parameter is written), from the
    registry: "cut" an integer cutoff after `_` or `.` (`P_10`, `P.10`), "none" no parameter,
    "recall" a recall level (`iprec_at_recall_0.10`), "beta" set_F's optional weight."""
    return {t.base: (e.name, t.form) for e in registry.entries() for t in e.trec_eval}


def _ir_measures_names() -> dict[str, str]:
    """ir_measures' own aliases (ir_measures.measures: MAP = AP, MRR = RR, NDCG = nDCG, ...)."""
    return {alias: e.name for e in registry.entries() for alias in e.ir_measures}


def _ranx_names() -> dict[str, RanxName]:
    """ranx (lowercase, `name@k`). ranx's `precision`, `recall` and `hit_rate` without @k mean
    the whole list (not P, R, Success), so they need the cutoff here."""
    return {r.name: r for e in registry.entries() for r in e.ranx}


def resolve(text: str) -> tuple[str, str] | None:
    """(canonical text, "trec_eval" | "ir_measures" | "ranx") for an alias, else None."""
    head, at, rest = text.partition("@")
    bare, paren, params = head.partition("(")
    ir_measures = _ir_measures_names()
    if bare in ir_measures:
        return ir_measures[bare] + paren + params + at + rest, "ir_measures"
    trec = _trec(text)
    if trec:
        return trec, "trec_eval"
    ranx = _RANX_SYNTAX.match(text)
    names = _ranx_names()
    if ranx and ranx["base"] in names:
        name, cutoff = names[ranx["base"]], ranx["cutoff"]
        if cutoff is None and name.cutoff == "required":
            return None
        if cutoff is not None and (name.cutoff == "none" or int(cutoff) < 1):
            return None
        return name.target + (f"@{int(cutoff)}" if cutoff else ""), "ranx"
    return None


def _trec(text: str) -> str | None:
    names = _trec_names()
    if text in names:
        name, kind = names[text]
        return name if kind in ("none", "beta") else None
    match = _TREC_SYNTAX.match(text)
    if not match or match["param"] is None or match["base"] not in names:
        return None
    name, kind = names[match["base"]]
    param = match["param"]
    if kind == "cut" and param.isdigit() and int(param) >= 1:
        return f"{name}@{int(param)}"
    level = float(param)
    if kind == "recall" and 0.0 <= level <= 1.0:
        return f"{name}@{level:g}"
    if kind == "beta" and level > 0:
        return f"{name}(beta={level:g})"
    return None


def spellings() -> dict[str, str]:
    """Every other tool's spelling of a measure's name -> the canonical name ("did you mean")."""
    out = {base: canon for base, (canon, _) in _trec_names().items()}
    out |= _ir_measures_names()
    out |= {base: r.target.split("(")[0] for base, r in _ranx_names().items()}
    return out
