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
   word qualifies, or twenty candidates are found (the largest first).

Each candidate lists the words more than half its members share, its examples (most zero-click
first) and its traffic; the rule snippet tests its word.
"""

from __future__ import annotations

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
MAX_CANDIDATES = 20  # a person reads each: more is a list nobody accepts
WORD = r"[^\W_]+"  # letters and digits (Polars' Unicode classes; the snippet's Python re alike)


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


def _words(labels: pl.LazyFrame) -> pl.LazyFrame:
    """One row per (query, word) of ``labels``, with its other columns (step 1). Each query's
    words are filtered and made distinct inside its own list, before the explode: a global
    unique over millions of (query, word) strings cost five times as much time and memory."""
    word = pl.element()
    return (
        labels.with_columns(
            word=pl.col("query")
            .str.to_lowercase()
            .str.extract_all(WORD)
            .list.eval(word.filter((word.str.len_chars() > 1) & ~word.is_in(sorted(STOPWORDS))))
            .list.unique()
        )
        .explode("word")
        .drop_nulls("word")
    )


def candidates(
    labels: pl.DataFrame,
    fallback: Sequence[str] = ("paraphrase",),
    *,
    misfits: Collection[str] = (),
    min_rate: float = MIN_RATE,
    min_size: int = MIN_SIZE,
    limit: int = MAX_CANDIDATES,
) -> list[Candidate]:
    """Candidate strata from the zero-click queries of ``labels`` (query, count, stratum,
    zero_click) filed under ``fallback``, or among ``misfits`` (queries a spot-check filed
    elsewhere), in the order they were found, at most ``limit`` (module docstring).

    Vectorised, for a log of millions of queries: a word that fails the size or the rate at the
    start never qualifies later (its members only leave), so only the words that pass both at
    the start are followed, and the failure rates are counted for those words alone, streamed."""
    pool = (
        labels.filter(
            (pl.col("stratum").is_in(list(fallback)) | pl.col("query").is_in(list(misfits)))
            & (pl.col(ZERO) > 0)
        )
        .select("query", "count", ZERO, "stratum")
        .with_row_index("qid")
    )
    # Integers from here: a word is its rank in sorted order (so ties break by the word), a
    # query its row in the pool; grouping them twenty times costs little beside strings.
    every = (
        _words(pool.lazy().select("qid", ZERO, "query"))
        .select("qid", ZERO, "word", wid=pl.col("word").rank("dense"))
        .collect()
    )
    vocab = every.select("wid", "word").unique("wid")
    sized = every.group_by("wid").len().filter(pl.col("len") >= min_size)
    rates = (
        _words(labels.lazy().select("query", "count", ZERO))
        .select("word", "count", ZERO)
        .join(vocab.join(sized, on="wid", how="semi").lazy(), on="word")
        .group_by("wid", "word")
        .agg(searches=pl.col("count").sum(), failed=pl.col(ZERO).sum())
        .filter(pl.col("failed") >= min_rate * pl.col("searches"))
        .collect(engine="streaming")
    )
    every = every.select("qid", "wid", ZERO)
    ids = every.join(rates.select("wid"), on="wid", how="semi")
    out: list[Candidate] = []
    while len(out) < limit and ids.height:
        ranked = (
            ids.group_by("wid")
            .agg(n=pl.len(), zc=pl.col(ZERO).sum())
            .filter(pl.col("n") >= min_size)
            .sort(["zc", "n", "wid"], descending=[True, True, False])
        )
        if ranked.height == 0:
            break
        wid = ranked["wid"][0]
        taken = ids.filter(pl.col("wid") == wid).get_column("qid").implode()
        members = pool.filter(pl.col("qid").is_in(taken)).sort(
            [ZERO, "query"], descending=[True, False]
        )
        held = (
            every.filter(pl.col("qid").is_in(taken))
            .group_by("wid")
            .len()
            .filter(2 * pl.col("len") > members.height)
            .join(vocab, on="wid")
            .sort(["len", "word"], descending=[True, False])
        )
        rate = rates.filter(pl.col("wid") == wid).row(0, named=True)
        out.append(
            Candidate(
                name=str(rate["word"]),
                words=[str(w) for w in held["word"]],
                queries=[str(q) for q in members["query"]],
                occurrences=int(members["count"].sum()),
                zero_click=int(members[ZERO].sum()),
                failure_rate=int(rate["failed"]) / int(rate["searches"]),
                from_strata=sorted({str(x) for x in members["stratum"]}),
            )
        )
        ids = ids.filter(~pl.col("qid").is_in(taken))
    return out


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
