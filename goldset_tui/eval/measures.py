"""Measure names as ir_measures writes them: ``nDCG@10``, ``P(rel=2)@10``, ``nDCG(dcg='exp-log2')@10``.

A name is a measure, optional parameters in parentheses and an optional ``@cutoff``. Parsing is
strict (a typo is an error that suggests the closest known name) because a silently ignored
parameter would print a plausible but wrong number.

Other tools' names (trec_eval's ``map``, ``ndcg_cut_10``, ``P_10``; ir_measures' ``MAP``; ranx's
``ndcg@10``, ``mrr@10``) are aliases (``aliases.py``): they parse to the canonical measure, whose
``alias`` field keeps what was typed so that the output can say what it was read as.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from goldset_tui.errors import InputError
from goldset_tui.eval import aliases

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
    "NumQ": ("none", frozenset()),
    # trec_eval's gm_map: AP per query, geometric mean over queries (AP floored at 1e-5).
    "GMAP": ("none", frozenset({"rel"})),
    # Interpolated precision at a recall level (`IPrec@0.1`), and trec_eval's 11pt_avg.
    "IPrec": ("recall", frozenset({"rel"})),
    "IPrecAvg": ("none", frozenset({"rel"})),
    "SetP": ("none", frozenset({"rel"})),
    "SetR": ("none", frozenset({"rel"})),
    "SetF": ("none", frozenset({"rel", "beta"})),
    # Expected Reciprocal Rank (Chapelle et al. 2009) as gdeval.pl computes it.
    "ERR": ("required", frozenset()),
    # Rank-biased precision (Moffat & Zobel 2008), binary gain, persistence p (ir_measures'
    # default 0.8), and its residual: what unjudged documents and the unretrieved tail could add.
    "RBP": ("none", frozenset({"rel", "p"})),
    "RBPResid": ("none", frozenset({"rel", "p"})),
    # Compatibility (Clarke et al. 2021): rank-biased overlap with the ideal ranking.
    "Compat": ("none", frozenset({"p", "normalize"})),
    # alpha-nDCG (Clarke et al. 2008) as ndeval: needs qrels with subtopics.
    "alpha_nDCG": ("required", frozenset({"rel", "alpha"})),
}
SUBTOPIC_MEASURES = frozenset({"alpha_nDCG"})
DEFAULT_P = {"RBP": 0.8, "RBPResid": 0.8, "Compat": 0.95}  # ir_measures' default persistence
COUNTS = frozenset({"NumRet", "NumRel", "NumRelRet", "NumQ"})
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
    "NumQ",
    "GMAP",
    "IPrec@0.1",
    "IPrecAvg",
    "SetP",
    "SetR",
    "SetF",
    "ERR@10",
    "RBP(p=0.8)",
    "RBPResid(p=0.8)",
    "Compat(p=0.95)",
    "alpha_nDCG@10",
]

_SYNTAX = re.compile(
    r"^(?P<name>[A-Za-z][A-Za-z_]*)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>[^@]*))?$"
)


@dataclass(frozen=True)
class Measure:
    """One parsed measure. ``text`` is the name as given, kept so results are keyed by it."""

    name: str
    cutoff: int | None = None
    rel: int = 1
    dcg: str = "log2"
    text: str = ""
    level: float | None = None  # IPrec's recall level, in [0, 1]
    beta: float = 1.0  # SetF's weight of recall against precision
    p: float | None = None  # RBP's and Compat's persistence, when given
    normalize: bool = True  # Compat divided by the ideal ranking's own
    alpha: float = 0.5  # alpha-nDCG's redundancy penalty
    rel_given: bool = False  # `rel=` written in the name (then -l does not change it)
    alias: str = ""  # the other tool's name this was read from, when it was one

    @property
    def is_count(self) -> bool:
        return self.name in COUNTS

    @property
    def needs_subtopics(self) -> bool:
        """Scored on diversity qrels (``query subtopic doc grade``), not one grade a document."""
        return self.name in SUBTOPIC_MEASURES

    @property
    def persistence(self) -> float:
        return self.p if self.p is not None else DEFAULT_P.get(self.name, 0.8)

    @property
    def aggregation(self) -> str:
        """How the `all` line is made from per-query values: ``sum`` (counts), ``gmean``
        (GMAP, as trec_eval's gm_map) or ``mean``."""
        if self.is_count:
            return "sum"
        return "gmean" if self.name == "GMAP" else "mean"

    @property
    def trec_eval_name(self) -> str | None:
        """trec_eval's name for this measure at its relevance level, or None."""
        return aliases.trec_eval_name(self.name, self.cutoff, self.level, self.beta, self.dcg)

    def __str__(self) -> str:
        return self.text or canonical(self)


def canonical(m: Measure) -> str:
    params = []
    if m.rel != 1:
        params.append(f"rel={m.rel}")
    if m.dcg != "log2":
        params.append(f"dcg='{m.dcg}'")
    if m.beta != 1.0:
        params.append(f"beta={m.beta:g}")
    if m.p is not None:
        params.append(f"p={m.p:g}")
    if not m.normalize:
        params.append("normalize=false")
    if m.alpha != 0.5:
        params.append(f"alpha={m.alpha:g}")
    text = m.name + (f"({','.join(params)})" if params else "")
    if m.level is not None:
        return text + f"@{m.level:g}"
    return text + (f"@{m.cutoff}" if m.cutoff is not None else "")


def with_rel_level(m: Measure, level: int) -> Measure:
    """``m`` at relevance level ``level`` (trec_eval's -l), unless its name set ``rel=`` itself
    or it takes no ``rel`` (nDCG's gain is the grade, as trec_eval's -l leaves ndcg alone)."""
    if level == 1 or m.rel_given or "rel" not in MEASURES[m.name][1]:
        return m
    moved = replace(m, rel=level, text="")
    return replace(moved, text=canonical(moved))


def _distance(a: str, b: str) -> int:
    """Levenshtein distance (insertions, deletions, substitutions), case-insensitive."""
    a, b = a.lower(), b.lower()
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, start=1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


_HEAD = re.compile(r"^(?P<head>.*?)(?:\((?P<params>[^()]*)\))?(?:[@_.](?P<cut>\d+(?:\.\d+)?))?$")


def _closest(text: str) -> str | None:
    """The canonical name nearest to ``text`` by edit distance on the measure part (other
    tools' names count as spellings of theirs), keeping the user's cutoff."""
    match = _HEAD.match(text)
    head = (match["head"] if match else text) or text
    cut = match["cut"] if match else None
    spellings = {name: name for name in MEASURES} | aliases.SPELLINGS
    best = min(spellings, key=lambda s: (_distance(head, s), s))
    if _distance(head, best) > max(2, len(head) // 2):
        return None
    name = spellings[best]
    rule = MEASURES[name][0]
    if rule == "none":
        return name
    if rule == "recall":
        return f"{name}@{cut if cut and '.' in cut else '0.1'}"
    if cut is None or not cut.isdigit():
        return f"{name}@10" if rule == "required" else name
    return f"{name}@{int(cut)}"


def _unknown(text: str, why: str, hint: str | None = None) -> InputError:
    hint = hint or _closest(text)
    suggestion = f"; did you mean {hint!r}?" if hint else f"; known: {', '.join(EXAMPLES)}"
    return InputError(None, f"measure {text!r}: {why}{suggestion}")


def _param(text: str, raw: str, hint: str) -> tuple[str, str]:
    if "=" not in raw:
        raise _unknown(text, f"parameter {raw.strip()!r} is not key=value", hint)
    key, value = (part.strip() for part in raw.split("=", 1))
    return key, value.strip("'\"")


def parse_measure(text: str) -> Measure:
    """``Measure`` for an ir_measures-style name or another tool's alias, or an InputError
    suggesting the closest name."""
    text = text.strip()
    match = _SYNTAX.match(text)
    if not match or match["name"] not in MEASURES:
        resolved = aliases.resolve(text)
        if resolved is None:
            raise _unknown(text, "unknown measure")
        m = _parse_canonical(resolved[0], _SYNTAX.match(resolved[0]))
        return replace(m, alias=text, text=canonical(m))  # printed as ir_measures spells it
    return _parse_canonical(text, match)


def _parse_canonical(text: str, match: re.Match[str] | None) -> Measure:
    assert match is not None  # aliases only resolve to canonical syntax
    name = match["name"]
    cutoff_rule, allowed = MEASURES[name]
    given = match["cutoff"]
    good_cutoff = given if given and given.isdigit() and int(given) >= 1 else "10"
    # What to suggest when a parameter or the cutoff is wrong: the same measure, plainly.
    hint = name + (
        f"@{good_cutoff}" if cutoff_rule == "required" or (given and cutoff_rule != "none") else ""
    )
    cutoff: int | None = None
    level: float | None = None
    if cutoff_rule == "recall":
        # IPrec@0.1: a recall level, not a rank
        try:
            level = float(given) if given is not None else None
        except ValueError:
            level = None
        if level is None or not 0.0 <= level <= 1.0:
            raise _unknown(text, f"{name} needs a recall level in [0, 1] after @", f"{name}@0.1")
    elif given is not None:
        if cutoff_rule == "none":
            raise _unknown(text, f"{name} takes no @cutoff", hint)
        if not given.isdigit() or int(given) < 1:
            raise _unknown(text, f"cutoff {given!r} is not a positive integer", hint)
        cutoff = int(given)
    elif cutoff_rule == "required":
        raise _unknown(text, f"{name} needs a cutoff", hint)
    rel, dcg, beta, rel_given = 1, "log2", 1.0, False
    persistence: float | None = None
    normalize = True
    alpha = 0.5
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
            rel_given = True
        elif key == "beta":
            try:
                beta = float(value)
            except ValueError:
                beta = -1.0
            if not beta > 0:
                raise _unknown(text, f"beta={value!r} is not a positive number", hint)
        elif key == "p":
            try:
                persistence = float(value)
            except ValueError:
                persistence = -1.0
            if not 0.0 < persistence < 1.0:
                raise _unknown(
                    text,
                    f"p={value!r} is not a number between 0 and 1",
                    f"{name}(p={DEFAULT_P[name]:g})",
                )
        elif key == "alpha":
            try:
                alpha = float(value)
            except ValueError:
                alpha = -1.0
            if not 0.0 <= alpha <= 1.0:
                raise _unknown(text, f"alpha={value!r} is not a number in [0, 1]", hint)
        elif key == "normalize":
            if value.lower() not in ("true", "false", "1", "0"):
                raise _unknown(text, f"normalize={value!r}: expected true or false", name)
            normalize = value.lower() in ("true", "1")
        elif key == "dcg":
            if value not in DCG_KINDS:
                hint = "nDCG(dcg='exp-log2')" + (f"@{cutoff}" if cutoff else "")
                raise _unknown(text, f"dcg={value!r}: expected one of {', '.join(DCG_KINDS)}", hint)
            dcg = value
    return Measure(
        name=name,
        cutoff=cutoff,
        rel=rel,
        dcg=dcg,
        text=text,
        level=level,
        beta=beta,
        p=persistence,
        normalize=normalize,
        alpha=alpha,
        rel_given=rel_given,
    )


def parse_measures(texts: list[str]) -> list[Measure]:
    """Parse and de-duplicate, keeping the given order: one measure spelled twice (``P@10`` and
    ``P_10``, quoted or not) is scored once, under its first spelling."""
    seen: dict[tuple[str, bool], Measure] = {}
    for text in texts:
        m = parse_measure(text)
        # `P(rel=1)@10` is not `P@10` once -l moves the line: a written rel= keeps them apart.
        seen.setdefault((canonical(m), m.rel_given), m)
    return list(seen.values())


def arithmetic_measure(text: str, *, option: str, does: str) -> Measure:
    """The measure ``text`` names, for a command that averages its per-query values (a report,
    a comparison, a ranking of systems by their means): GMAP's mean is geometric, so those
    commands would print AP's arithmetic mean under GMAP's name. Refused in one line."""
    measure = parse_measure(text)
    if measure.aggregation == "gmean":
        raise InputError(
            None,
            f"{option} {text.strip()!r}: its mean is geometric, and {does} arithmetic means of "
            "per-query values; use AP (goldset eval -m GMAP gives the geometric mean)",
        )
    return measure
