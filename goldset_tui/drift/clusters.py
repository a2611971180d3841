"""Candidate new strata from zero-click queries the rules fit badly.

The rules end in a last resort (the built-in rules' ``paraphrase``: whatever matched nothing
else). Zero-click queries that land there are failing searches no stratum explains; grouped by
the words they share, a group with traffic is a candidate stratum for a person to name, justify
by a mechanism and accept into the rules (docs/drift.md). A stratum the spot-check often
corrects fits badly too (:func:`often_corrected`: one check in five or more, of at least five),
and so does every query it corrected: both join the pool beside the last resort.

The grouping is deliberately simple, with no dependency, and deterministic, so a reader can
redo it by hand:

1. A query's words are its runs of letters and digits, lowercased, without the stopwords below
   and one-character words.
2. For each word of the zero-click queries filed under ``fallback``: the queries holding it
   (its members), their zero-click searches, and its failure rate: the zero-click share of all
   the log's searches whose query holds the word (any stratum). A word people also search for
   with success is no sign of a missing stratum, so a word needs a failure rate of at least
   ``min_rate`` (a half) and ``min_size`` members (two).
3. The word with the most zero-click searches (ties: more members, then the word) makes a
   candidate of its members; they leave the pool, and step 2 runs again on the rest until no
   word qualifies.

Each candidate lists the words more than half its members share, its examples (most zero-click
first) and its traffic; the rule snippet tests its word.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from goldset_tui.drift.zero_click import ZERO

STOPWORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "if",
        "in",
        "is",
        "it",
        "my",
        "of",
        "on",
        "or",
        "so",
        "that",
        "the",
        "this",
        "to",
        "was",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    }
)
MIN_RATE = 0.5
CORRECTED_SHARE = 0.2  # a stratum the spot-check corrects in one of five checks or more
CORRECTED_CHECKS = 5  # ... of at least five: fewer say nothing
MIN_SIZE = 2
EXAMPLES = 5
_WORD = re.compile(r"[^\W_]+")


def words_of(query: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(query.lower()) if len(w) > 1 and w not in STOPWORDS)


@dataclass
class Candidate:
    name: str  # the word that made it
    words: list[str]  # the words more than half its members hold, most held first
    queries: list[str]  # by zero-click searches, most first
    occurrences: int  # searches of its queries
    zero_click: int  # of which zero-click
    failure_rate: float  # zero-click share of every search whose query holds the word
    from_strata: list[str]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "words": self.words,
            "examples": self.queries[:EXAMPLES],
            "queries": len(self.queries),
            "occurrences": self.occurrences,
            "zero_click": self.zero_click,
            "failure_rate": self.failure_rate,
            "from_strata": self.from_strata,
        }


def often_corrected(
    confusion: Mapping[str, Mapping[str, int]],
    share: float = CORRECTED_SHARE,
    at_least: int = CORRECTED_CHECKS,
) -> list[str]:
    """Strata the spot-check corrects often: of at least ``at_least`` checked queries filed
    there, a ``share`` or more (one in five) were given another stratum by the person checking.
    ``confusion``: assigned -> correct -> count (``sampling.spotcheck.Agreement.confusion``)."""
    out = []
    for stratum, row in sorted(confusion.items()):
        checked = sum(row.values())
        wrong = checked - row.get(stratum, 0)
        if checked >= at_least and wrong >= share * checked:
            out.append(stratum)
    return out


def candidates(
    labels: pl.DataFrame,
    fallback: Sequence[str] = ("paraphrase",),
    *,
    misfits: Collection[str] = (),
    min_rate: float = MIN_RATE,
    min_size: int = MIN_SIZE,
) -> list[Candidate]:
    """Candidate strata from the zero-click queries of ``labels`` (query, count, stratum,
    zero_click) filed under ``fallback``, or among ``misfits`` (queries a spot-check filed
    elsewhere), in the order they were found (module docstring)."""
    every = [
        (words_of(str(q)), int(c), int(z))
        for q, c, z in labels.select("query", "count", ZERO).iter_rows()
    ]
    searches: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    for words, count, zero in every:
        for w in words:
            searches[w] += count
            failed[w] += zero
    pool = [
        (str(q), int(c), int(z), str(s), words_of(str(q)))
        for q, c, z, s in labels.filter(
            (pl.col("stratum").is_in(list(fallback)) | pl.col("query").is_in(list(misfits)))
            & (pl.col(ZERO) > 0)
        )
        .sort([ZERO, "query"], descending=[True, False])
        .select("query", "count", ZERO, "stratum")
        .iter_rows()
    ]
    out: list[Candidate] = []
    while True:
        members: dict[str, list[tuple[str, int, int, str, frozenset[str]]]] = {}
        for row in pool:
            for w in row[4]:
                members.setdefault(w, []).append(row)
        ok = [
            w
            for w, rows in members.items()
            if len(rows) >= min_size and failed[w] >= min_rate * searches[w]
        ]
        if not ok:
            return out
        best = min(ok, key=lambda w: (-sum(r[2] for r in members[w]), -len(members[w]), w))
        rows = members[best]
        tally = Counter(w for r in rows for w in r[4])
        out.append(
            Candidate(
                name=best,
                words=sorted(
                    (w for w in tally if 2 * tally[w] > len(rows)), key=lambda w: (-tally[w], w)
                ),
                queries=[r[0] for r in rows],
                occurrences=sum(r[1] for r in rows),
                zero_click=sum(r[2] for r in rows),
                failure_rate=failed[best] / searches[best],
                from_strata=sorted({r[3] for r in rows}),
            )
        )
        taken = {r[0] for r in rows}
        pool = [r for r in pool if r[0] not in taken]


def rule_snippet(found: Sequence[Candidate], rules: str | None = None) -> str:
    """Python a person can paste as their ``--rules`` function: each candidate tested before
    the rules in force (``rules``: their ``module:function`` or ``file.py:function``; the
    built-in rules without it). Names and words are written as Python literals (``repr``)."""
    if rules:
        target, _, func = rules.rpartition(":")
        if target.endswith(".py"):
            head = [
                "import importlib.util",
                f"_spec = importlib.util.spec_from_file_location('_before', {target!r})",
                "_mod = importlib.util.module_from_spec(_spec)",
                "_spec.loader.exec_module(_mod)",
                f"before = _mod.{func}",
            ]
        else:
            head = [f"from {target} import {func} as before"]
    else:
        head = ["from goldset_tui.sampling.rules import classify_one as before"]
    lines = ["import re", *head, "", "", "def rules(spelling, vocab):"]
    lines.append("    words = set(re.findall(r'[^\\W_]+', spelling.lower()))")
    for c in found:
        lines.append(
            f"    # {c.name}: {len(c.queries)} queries, {c.occurrences} searches, "
            f"{c.zero_click} zero-click ({c.failure_rate:.0%} of searches with the word)"
        )
        lines += [f"    # e.g. {q!r}" for q in c.queries[:2]]
        lines.append("    # mechanism: (why a ranker fails these: write it before accepting)")
        lines.append(f"    if {c.name!r} in words:")
        lines.append(f"        return {c.name!r}")
    lines.append("    return before(spelling, vocab)")
    return "\n".join(lines) + "\n"
