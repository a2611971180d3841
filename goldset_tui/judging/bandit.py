"""Which pooled document of one query to judge next: MaxMean, the multi-armed-bandit adjudication
of Losada, Parapar & Barreiro.

References: D. E. Losada, J. Parapar, A. Barreiro, "Feeling lucky? Multi-armed bandits for
ordering judgements in pooling-based evaluation", ACM SAC 2016, and "Multi-armed bandits for
adjudicating documents in pooling-based evaluation of information retrieval systems", Information
Processing & Management 53(5), 2017 (doi:10.1016/j.ipm.2017.04.005). Neither their code nor the
papers' full text was reachable from here (only the abstracts), so this is MaxMean ("MM") as the
authors define it, written from that definition; every choice the definition leaves open is named
below as ours, and the whole is traced by hand on the tiny pool written out in
tests/unit/machine/test_bandit_order.py.

The variant implemented is the *stationary* MaxMean (MM), not the non-stationary MM-NS that NIST
used for the TREC 2017 Common Core pool: MM-NS discounts a run's older judgments, and the exact
discount could not be checked against the paper here, so it is left out rather than guessed.

The model, per query:

- every run is an arm; pulling it judges the highest-ranked document of its top ``depth`` that is
  not judged yet (a document another run already brought to judgment is skipped, not re-judged);
- a run's chance of giving a relevant document is Bernoulli with a Beta(1, 1) prior (uniform), so
  after ``rel`` relevant and ``nrel`` non-relevant judged documents among its top ``depth`` the
  posterior mean is ``(rel + 1) / (rel + nrel + 2)``. Ours: a document counts for every run whose
  top holds it, however it came to be judged (the judgment is about the document, not about which
  run asked for it);
- MaxMean pulls the run with the largest posterior mean (pure exploitation of the mean; the prior
  is what makes an untried run worth 1/2 and so gets it tried);
- ties go to the run listed first (ours: a random tie-break would make a trace irreproducible;
  ``runs`` is ordered and the caller decides, e.g. the order the runs were given, or sorted
  names); at the start every run is at 1/2 and the first run's top document is judged first;
- a run with nothing left to judge in its top ``depth`` leaves; when all have left, the query is
  done (:func:`maxmean_next` returns None).

Pure Python over small per-query lists (a pool's query has tens to a few hundred documents):
cheap enough to call after every grade.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

NAME = "mm"  # the paper's abbreviation for MaxMean


def posterior_mean(relevant: int, not_relevant: int) -> float:
    """Mean of Beta(1 + relevant, 1 + not_relevant): the uniform prior updated."""
    return (relevant + 1) / (relevant + not_relevant + 2)


def maxmean_next(ranked: Mapping[str, Sequence[str]], judged: Mapping[str, bool]) -> str | None:
    """The next document to judge for one query, or None when every run's top is judged.

    ``ranked``: run -> its doc ids best first, already cut at the pool depth, in tie-break order.
    ``judged``: doc id -> relevant? for the documents judged so far in this query.
    """
    best: tuple[float, str] | None = None
    for docs in ranked.values():
        nxt = next((d for d in docs if d not in judged), None)
        if nxt is None:
            continue  # this arm is exhausted
        seen = [judged[d] for d in dict.fromkeys(docs) if d in judged]
        rel, nrel = sum(seen), len(seen) - sum(seen)
        score = posterior_mean(rel, nrel)
        if best is None or score > best[0]:  # strict: a tie keeps the earlier run
            best = (score, nxt)
    return None if best is None else best[1]


def maxmean_sequence(
    ranked: Mapping[str, Sequence[str]], relevant: set[str] | frozenset[str]
) -> list[str]:
    """The whole MaxMean judging order of one query when ``relevant`` is the truth (replay).

    The same choices as calling :func:`maxmean_next` after every judgment (a test checks it), with
    the counts kept incrementally: a replay of a depth-100 pool would otherwise rescan every run's
    list on every pick.
    """
    names = list(ranked)
    holders: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        for doc in dict.fromkeys(ranked[name]):
            holders.setdefault(doc, []).append(i)
    rel = [0] * len(names)
    nrel = [0] * len(names)
    cursor = [0] * len(names)
    judged: set[str] = set()
    order: list[str] = []
    while True:
        best = -1
        best_score = -1.0
        for i, name in enumerate(names):
            docs = ranked[name]
            while cursor[i] < len(docs) and docs[cursor[i]] in judged:
                cursor[i] += 1
            if cursor[i] < len(docs):
                score = posterior_mean(rel[i], nrel[i])
                if score > best_score:
                    best, best_score = i, score
        if best < 0:
            return order
        doc = ranked[names[best]][cursor[best]]
        judged.add(doc)
        order.append(doc)
        counts = rel if doc in relevant else nrel
        for i in holders[doc]:
            counts[i] += 1
