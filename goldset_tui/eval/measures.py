"""Measure names as ir_measures writes them: ``nDCG@10``, ``P(rel=2)@10``, ``nDCG(dcg='exp-log2')@10``.

A name is a measure, optional parameters in parentheses and an optional ``@cutoff``. Parsing is
strict (a typo is an error that suggests the closest known name) because a silently ignored
parameter would print a plausible but wrong number.

Other tools' names (trec_eval's ``map``, ``ndcg_cut_10``, ``P_10``; ir_measures' ``MAP``; ranx's
``ndcg@10``, ``mrr@10``) are aliases (``aliases.py``): they parse to the canonical measure, whose
``alias`` field keeps what was typed so that the output can say what it was read as. Which
names exist, their cutoff rules and parameters come from the registry (``goldset_tui.measures``);
this module only reads the syntax.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import replace

from goldset_tui import measures as registry
from goldset_tui.errors import InputError
from goldset_tui.eval import aliases
from goldset_tui.measures.entry import Measure as Measure  # re-exported
from goldset_tui.measures.entry import canonical as canonical  # re-exported

DCG_KINDS = ("log2", "exp-log2")  # gain = grade (trec_eval) | 2^grade - 1 (Burges et al.)


class _Rules(Mapping[str, tuple[str, frozenset[str]]]):
    """name -> (cutoff rule, parameters it accepts), read live from the registry (so a measure
    registered later is known here too)."""

    def __getitem__(self, name: str) -> tuple[str, frozenset[str]]:
        e = registry.lookup(name)
        return e.cutoff, e.params

    def __iter__(self) -> Iterator[str]:
        return (e.name for e in registry.entries())

    def __len__(self) -> int:
        return sum(1 for _ in registry.entries())


MEASURES: Mapping[str, tuple[str, frozenset[str]]] = _Rules()

_SYNTAX = re.compile(
    r"^(?P<name>[A-Za-z][A-Za-z_]*)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>[^@]*))?$"
)


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
    spellings = {name: name for name in MEASURES} | aliases.spellings()
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
    suggestion = (
        f"; did you mean {hint!r}?" if hint else f"; known: {', '.join(registry.examples())}"
    )
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
                    f"{name}(p={registry.lookup(name).default_p:g})",
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
