"""Measure names as ir_measures writes them: ``nDCG@10``, ``P(rel=2)@10``, ``nDCG(dcg='exp-log2')@10``.

A name is a measure, optional parameters in parentheses and an optional ``@cutoff``. Parsing is
strict (a typo is an error that suggests the closest known name) because a silently ignored
parameter would print a plausible but wrong number.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from goldset_tui.errors import InputError

# name -> (cutoff: "required" | "optional" | "none", parameters it accepts)
MEASURES: dict[str, tuple[str, frozenset[str]]] = {
    "P": ("required", frozenset({"rel"})),
    "R": ("required", frozenset({"rel"})),
    "Success": ("required", frozenset({"rel"})),
    "RR": ("optional", frozenset({"rel"})),
    "AP": ("optional", frozenset({"rel"})),
    # trec_eval's nDCG takes the grade itself as gain whatever the relevance level, so no `rel`.
    "nDCG": ("optional", frozenset({"dcg"})),
    "Rprec": ("none", frozenset({"rel"})),
    "Bpref": ("none", frozenset({"rel"})),
    "infAP": ("none", frozenset({"rel"})),
    "Judged": ("required", frozenset()),
    "NumRet": ("none", frozenset()),
    "NumRel": ("none", frozenset({"rel"})),
    "NumRelRet": ("none", frozenset({"rel"})),
}
COUNTS = frozenset({"NumRet", "NumRel", "NumRelRet"})
DCG_KINDS = ("log2", "exp-log2")  # gain = grade (trec_eval) | 2^grade - 1 (Burges et al.)
EXAMPLES = [
    "P@10",
    "R@100",
    "Success@10",
    "RR",
    "RR@10",
    "AP",
    "AP@100",
    "nDCG",
    "nDCG@10",
    "nDCG(dcg='exp-log2')@10",
    "P(rel=2)@10",
    "Rprec",
    "Bpref",
    "infAP",
    "Judged@10",
    "NumRet",
    "NumRel",
    "NumRelRet",
]

_SYNTAX = re.compile(r"^(?P<name>[A-Za-z]+)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>[^@]*))?$")


@dataclass(frozen=True)
class Measure:
    """One parsed measure. ``text`` is the name as given, kept so results are keyed by it."""

    name: str
    cutoff: int | None = None
    rel: int = 1
    dcg: str = "log2"
    text: str = ""

    @property
    def is_count(self) -> bool:
        return self.name in COUNTS

    @property
    def is_binary(self) -> bool:
        """Per-query values are only ever 0 or 1 (discordant counts make sense)."""
        return self.name == "Success"

    def __str__(self) -> str:
        return self.text or canonical(self)


def canonical(m: Measure) -> str:
    params = []
    if m.rel != 1:
        params.append(f"rel={m.rel}")
    if m.dcg != "log2":
        params.append(f"dcg='{m.dcg}'")
    text = m.name + (f"({','.join(params)})" if params else "")
    return text + (f"@{m.cutoff}" if m.cutoff is not None else "")


# trec_eval's names, so that `-m map` or `-m ndcg_cut_10` suggests the name used here.
TREC_EVAL_NAMES = {
    "map": "AP",
    "map_cut": "AP",
    "P": "P",
    "recall": "R",
    "success": "Success",
    "recip_rank": "RR",
    "ndcg": "nDCG",
    "ndcg_cut": "nDCG",
    "Rprec": "Rprec",
    "bpref": "Bpref",
    "infAP": "infAP",
    "num_ret": "NumRet",
    "num_rel": "NumRel",
    "num_rel_ret": "NumRelRet",
}


def _trec_eval_hint(text: str) -> str | None:
    match = re.fullmatch(r"([A-Za-z_]+?)(?:[_.](\d+))?", text)
    if not match or match[1] not in TREC_EVAL_NAMES:
        return None
    name = TREC_EVAL_NAMES[match[1]]
    cutoff = match[2] or ("10" if MEASURES[name][0] == "required" else None)
    return name + (f"@{cutoff}" if cutoff and MEASURES[name][0] != "none" else "")


def _unknown(text: str, why: str, hint: str | None = None) -> InputError:
    if hint:
        return InputError(None, f"measure {text!r}: {why}; did you mean {hint!r}?")
    trec_hint = _trec_eval_hint(text)
    if trec_hint:
        return InputError(
            None, f"measure {text!r}: {why} (a trec_eval name?); did you mean {trec_hint!r}?"
        )
    close = difflib.get_close_matches(text, EXAMPLES, n=1, cutoff=0.5)
    lower = {e.lower(): e for e in EXAMPLES}
    hint = lower.get(text.lower()) or (close[0] if close else None)
    if hint is None:
        # "ndcg_cut_10"-style trec_eval names: suggest on the measure part alone.
        head = re.split(r"[@(_.]", text, maxsplit=1)[0]
        names = {n.lower(): n for n in MEASURES}
        name = names.get(head.lower()) or next(
            iter(difflib.get_close_matches(head, list(MEASURES), n=1, cutoff=0.5)), None
        )
        hint = next((e for e in EXAMPLES if e.startswith(name)), None) if name else None
    suggestion = f"; did you mean {hint!r}?" if hint else f"; known: {', '.join(EXAMPLES)}"
    return InputError(None, f"measure {text!r}: {why}{suggestion}")


def _param(text: str, raw: str, hint: str) -> tuple[str, str]:
    if "=" not in raw:
        raise _unknown(text, f"parameter {raw.strip()!r} is not key=value", hint)
    key, value = (part.strip() for part in raw.split("=", 1))
    return key, value.strip("'\"")


def parse_measure(text: str) -> Measure:
    """``Measure`` for an ir_measures-style name, or an InputError suggesting the closest name."""
    text = text.strip()
    match = _SYNTAX.match(text)
    if not match or match["name"] not in MEASURES:
        raise _unknown(text, "unknown measure")
    name = match["name"]
    cutoff_rule, allowed = MEASURES[name]
    given = match["cutoff"]
    good_cutoff = given if given and given.isdigit() and int(given) >= 1 else "10"
    # What to suggest when a parameter or the cutoff is wrong: the same measure, plainly.
    hint = name + (
        f"@{good_cutoff}" if cutoff_rule == "required" or (given and cutoff_rule != "none") else ""
    )
    cutoff: int | None = None
    if given is not None:
        if cutoff_rule == "none":
            raise _unknown(text, f"{name} takes no @cutoff", hint)
        if not given.isdigit() or int(given) < 1:
            raise _unknown(text, f"cutoff {given!r} is not a positive integer", hint)
        cutoff = int(given)
    elif cutoff_rule == "required":
        raise _unknown(text, f"{name} needs a cutoff", hint)
    rel, dcg = 1, "log2"
    for raw in filter(str.strip, (match["params"] or "").split(",")):
        key, value = _param(text, raw, hint)
        if key not in allowed:
            raise _unknown(text, f"{name} takes no parameter {key!r}", hint)
        if key == "rel":
            try:
                rel = int(value)
            except ValueError:
                raise _unknown(text, f"rel={value!r} is not an integer", hint) from None
            if rel < 1:
                raise _unknown(
                    text, "rel must be at least 1 (grades below it count as not relevant)", hint
                )
        elif key == "dcg":
            if value not in DCG_KINDS:
                hint = "nDCG(dcg='exp-log2')" + (f"@{cutoff}" if cutoff else "")
                raise _unknown(text, f"dcg={value!r}: expected one of {', '.join(DCG_KINDS)}", hint)
            dcg = value
    return Measure(name=name, cutoff=cutoff, rel=rel, dcg=dcg, text=text)


def parse_measures(texts: list[str]) -> list[Measure]:
    """Parse and de-duplicate, keeping the given order."""
    seen: dict[str, Measure] = {}
    for text in texts:
        m = parse_measure(text)
        seen.setdefault(str(m), m)
    return list(seen.values())
