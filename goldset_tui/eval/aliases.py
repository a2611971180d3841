"""Other tools' measure names, read as aliases of goldset's canonical (ir_measures) names.

``resolve(text)`` turns a trec_eval name (``map``, ``ndcg_cut_10``, ``P_10``, ``P.10``,
``iprec_at_recall_0.10``, ``set_P``), an ir_measures alias (``MAP``, ``NDCG@10``, ``Recall@100``)
or a ranx name (``ndcg@10``, ``mrr@10``, ``map@100``, ``precision@10``, ``recall@100``) into the
canonical text and the tool it came from, or None. ``trec_eval_name(measure)`` goes the other
way, for ``--trec-eval-compat`` output. Nothing here computes anything: the registry in
``measures.py`` stays the one place that says what a measure is.

Only names whose meaning is the same are aliases: ranx's ``ndcg`` has the grade as gain, as
trec_eval's and goldset's nDCG (its ``ndcg_burges`` is ``dcg='exp-log2'``); ranx's ``mrr@k``
is RR@k. A name that would only be close (ranx's ``hits@k``, ``f1@k``) is not accepted.
"""

from __future__ import annotations

import re

# trec_eval: base name -> (canonical name, how its parameter is written)
#   "cut": an integer cutoff after `_` or `.` (`P_10`, `P.10`); "none": no parameter;
#   "recall": a recall level (`iprec_at_recall_0.10`); "beta": set_F's optional weight.
_TREC: dict[str, tuple[str, str]] = {
    "map": ("AP", "none"),
    "map_cut": ("AP", "cut"),
    "gm_map": ("GMAP", "none"),
    "P": ("P", "cut"),
    "recall": ("R", "cut"),
    "success": ("Success", "cut"),
    "recip_rank": ("RR", "none"),
    "ndcg": ("nDCG", "none"),
    "ndcg_cut": ("nDCG", "cut"),
    "Rprec": ("Rprec", "none"),
    "bpref": ("Bpref", "none"),
    "infAP": ("infAP", "none"),
    "num_q": ("NumQ", "none"),
    "num_ret": ("NumRet", "none"),
    "num_rel": ("NumRel", "none"),
    "num_rel_ret": ("NumRelRet", "none"),
    "iprec_at_recall": ("IPrec", "recall"),
    "11pt_avg": ("IPrecAvg", "none"),
    "set_P": ("SetP", "none"),
    "set_recall": ("SetR", "none"),
    "set_F": ("SetF", "beta"),
}
_TREC_SYNTAX = re.compile(r"^(?P<base>[A-Za-z0-9_]+?)(?:[_.](?P<param>\d+(?:\.\d+)?|\.\d+))?$")

# ir_measures' own aliases (ir_measures.measures: MAP = AP, MRR = RR, NDCG = nDCG, ...).
_IR_MEASURES = {
    "MAP": "AP",
    "MRR": "RR",
    "NDCG": "nDCG",
    "Precision": "P",
    "Recall": "R",
    "BPref": "Bpref",
    "RPrec": "Rprec",
}

# ranx (lowercase, `name@k`): name -> canonical. ranx's `precision`, `recall` and `hit_rate`
# without @k mean the whole list (not P, R, Success), so they need the cutoff here.
_RANX = {
    "ndcg": "nDCG",
    "ndcg_burges": "nDCG(dcg='exp-log2')",
    "mrr": "RR",
    "map": "AP",
    "precision": "P",
    "recall": "R",
    "hit_rate": "Success",
    "r-precision": "Rprec",
    "bpref": "Bpref",
}
_RANX_NEEDS_CUTOFF = frozenset({"precision", "recall", "hit_rate"})
_RANX_NO_CUTOFF = frozenset({"r-precision", "bpref"})
_RANX_SYNTAX = re.compile(r"^(?P<base>[a-z_-]+)(?:@(?P<cutoff>\d+))?$")


def resolve(text: str) -> tuple[str, str] | None:
    """(canonical text, "trec_eval" | "ir_measures" | "ranx") for an alias, else None."""
    head, at, rest = text.partition("@")
    bare, paren, params = head.partition("(")
    if bare in _IR_MEASURES:
        return _IR_MEASURES[bare] + paren + params + at + rest, "ir_measures"
    trec = _trec(text)
    if trec:
        return trec, "trec_eval"
    ranx = _RANX_SYNTAX.match(text)
    if ranx and ranx["base"] in _RANX:
        base, cutoff = ranx["base"], ranx["cutoff"]
        if cutoff is None and base in _RANX_NEEDS_CUTOFF:
            return None
        if cutoff is not None and (base in _RANX_NO_CUTOFF or int(cutoff) < 1):
            return None
        return _RANX[base] + (f"@{int(cutoff)}" if cutoff else ""), "ranx"
    return None


def _trec(text: str) -> str | None:
    if text in _TREC:
        name, kind = _TREC[text]
        return name if kind in ("none", "beta") else None
    match = _TREC_SYNTAX.match(text)
    if not match or match["param"] is None or match["base"] not in _TREC:
        return None
    name, kind = _TREC[match["base"]]
    param = match["param"]
    if kind == "cut" and param.isdigit() and int(param) >= 1:
        return f"{name}@{int(param)}"
    level = float(param)
    if kind == "recall" and 0.0 <= level <= 1.0:
        return f"{name}@{level:g}"
    if kind == "beta" and level > 0:
        return f"{name}(beta={level:g})"
    return None


def trec_eval_name(
    name: str, cutoff: int | None, level: float | None, beta: float, dcg: str
) -> str | None:
    """How trec_eval prints a canonical measure (None: trec_eval has no such measure)."""
    if dcg != "log2":
        return None
    if name == "IPrec" and level is not None:
        return f"iprec_at_recall_{level:.2f}"
    if name == "SetF":
        return "set_F" if beta == 1.0 else None
    for base, (canon, kind) in _TREC.items():
        if canon != name or kind == "recall":
            continue
        if kind == "cut" and cutoff is not None:
            return f"{base}_{cutoff}"
        if kind in ("none", "beta") and cutoff is None:
            return base
    return None


def _spellings() -> dict[str, str]:
    out = {base: canon for base, (canon, _) in _TREC.items()}
    out |= _IR_MEASURES
    out |= {base: canon.split("(")[0] for base, canon in _RANX.items()}
    return out


# Every other tool's spelling of a measure's name -> the canonical name ("did you mean").
SPELLINGS: dict[str, str] = _spellings()
