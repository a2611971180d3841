"""The strata definition, written down with each release: which rules made the strata (their
source's sha256), the strata's names, a one-line mechanism each, and a digest of which query
sits in which stratum.

Strata are hypotheses about mechanisms and must be written down before the numbers are read:
with six slices and two systems one gap is likely to be chance, and a slice invented after the
fact will always find one (docs/background.md#strata-follow-mechanisms). So a release records the
definition it was measured under, and a later report whose strata differ says so
(:func:`describe_change`) instead of letting a moved stratum read as a moved system.

The mechanisms of the six built-in strata are below; a stratum the built-in rules do not make
(a user's ``--rules``) has none written down here, and the definition says so rather than
inventing one. The rules' sha256 is known for the built-in rules only: a strata file made by a
user's rules carries no trace of them, so it is recorded as unknown (null), not guessed.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Mapping
from typing import Any

import polars as pl

from goldset_tui.sampling.rules import STRATA

MECHANISMS = {
    "exact_identifier": "BM25 scores a rare exact token (an error code, a function name); "
    "an embedding blurs it into its neighbours",
    "negation": "neither ranker scores the absence of a term: a query about what is not "
    "covered retrieves pages about what is",
    "misspelled": "a misspelled token matches no indexed term; subword tokens keep most of its "
    "meaning for the dense retriever",
    "short_keyword": "a few bare keywords give BM25 little to weigh and an embedding little "
    "context",
    "multi_entity": "several named things must all match; a ranker can satisfy one and drop "
    "the others",
    "paraphrase": "the answer shares no rare term with the query: only learned proximity can "
    "find it",
}
NO_MECHANISM = "no mechanism written down"
BUILT_IN = "goldset_tui.sampling.rules"


def rules_sha256() -> str:
    """sha256 of the built-in rules' source (what `goldset classify`'s manifest records)."""
    from goldset_tui.sampling import rules

    source = inspect.getsourcefile(rules)
    assert source is not None
    with open(source, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def assignment_sha256(strata: pl.DataFrame) -> str:
    """sha256 of the sorted ``query_id<TAB>stratum`` lines: the same assignment, any order."""
    lines = sorted(f"{q}\t{s}" for q, s in strata.select("query_id", "stratum").iter_rows())
    return hashlib.sha256("".join(f"{line}\n" for line in lines).encode("utf-8")).hexdigest()


def strata_definition(strata: pl.DataFrame) -> dict[str, Any]:
    """The definition of the strata of ``strata`` (query_id, stratum), in file order."""
    names = [str(s) for s in strata.get_column("stratum").unique(maintain_order=True).to_list()]
    built_in = set(names) <= set(STRATA)
    return {
        "rules": BUILT_IN if built_in else None,
        "rules_sha256": rules_sha256() if built_in else None,
        "strata": [{"name": s, "mechanism": MECHANISMS.get(s, NO_MECHANISM)} for s in names],
        "assignment_sha256": assignment_sha256(strata),
    }


def describe_change(
    recorded: Mapping[str, Any] | None,
    recorded_strata: Mapping[str, str],
    current: Mapping[str, Any],
    current_strata: Mapping[str, str],
) -> list[str]:
    """What changed from the definition recorded with a release to the current one, one short
    phrase a change (empty: the same strata). ``*_strata``: query_id -> stratum; a record made
    before definitions were kept has ``recorded`` None and is compared by its strata alone."""
    out: list[str] = []
    old_names = (
        [str(s["name"]) for s in recorded.get("strata", [])]
        if recorded
        else sorted(set(recorded_strata.values()))
    )
    new_names = [str(s["name"]) for s in current.get("strata", [])]
    added = [s for s in new_names if s not in old_names]
    removed = [s for s in old_names if s not in new_names]
    if added:
        out.append("strata added: " + ", ".join(added))
    if removed:
        out.append("strata removed: " + ", ".join(removed))
    if recorded and recorded.get("rules_sha256") != current.get("rules_sha256"):
        out.append("the rules changed (their sha256 differs)")
    if recorded:
        before = {str(s["name"]): s.get("mechanism") for s in recorded.get("strata", [])}
        moved = [
            str(s["name"])
            for s in current.get("strata", [])
            if s["name"] in before and before[s["name"]] != s.get("mechanism")
        ]
        if moved:
            out.append("mechanism rewritten for " + ", ".join(moved))
    refiled = sum(
        1 for q, s in current_strata.items() if q in recorded_strata and recorded_strata[q] != s
    )
    if refiled:
        out.append(f"{refiled} quer{'y' if refiled == 1 else 'ies'} filed under another stratum")
    return out
