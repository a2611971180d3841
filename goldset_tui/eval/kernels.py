"""The measures of ``metrics.py`` for one query at a time, in plain Python, for small inputs.

A second implementation on purpose: ``goldset eval`` on Robust 2003 (100 topics) spent more
time importing Polars than evaluating, so below a size threshold the evaluation runs here.
Every kernel restates the Polars expression of the same measure in ``metrics._measure_exprs``
or ``more_measures.EXTRA`` (same inputs: the judged documents of the ranking with their rank
and grade, the number retrieved, the query's grades; same order of operations), and
tests/unit/eval/test_small_path.py holds the two equal, measure by measure, on every peer file
and on generated inputs: that test is what keeps them from drifting. A measure without a kernel
(Compat, alpha_nDCG: they need whole frames) sends the evaluation to Polars.

trec_eval's behaviours are those listed in ``metrics.py``; constants are shared with it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

from goldset_tui.eval.measures import Measure

INFAP_EPSILON = 0.00001  # trec_eval's infAP.c
ERR_MAX_GRADE = 4  # gdeval.pl's $MAX_JUDGMENT
ELEVEN_POINTS = tuple(i / 10 for i in range(11))


class Query:
    """One query's ranking as the measures see it: ``judged`` holds (rank, grade) of each
    retrieved document in the qrels (negative grades included), in rank order; ``grades`` the
    grade of each document in the query's qrels; ``num_ret`` how many documents were ranked."""

    __slots__ = ("_nnon", "_nrel", "grades", "judged", "num_ret")

    def __init__(self, judged: list[tuple[int, int]], grades: Sequence[int], num_ret: int):
        self.judged = judged
        self.grades = grades
        self.num_ret = num_ret
        self._nrel: dict[int, int] = {}
        self._nnon: dict[int, int] = {}

    def nrel(self, level: int) -> int:
        if level not in self._nrel:
            self._nrel[level] = sum(1 for g in self.grades if g >= level)
        return self._nrel[level]

    def nnon(self, level: int) -> int:
        """Judged non-relevant documents: 0 <= grade < level."""
        if level not in self._nnon:
            self._nnon[level] = sum(1 for g in self.grades if 0 <= g < level)
        return self._nnon[level]

    def rel_ranks(self, level: int, cutoff: int | None = None) -> list[tuple[int, int]]:
        """(rank, relevant documents at or above it) for each relevant document."""
        out, seen = [], 0
        for rank, grade in self.judged:
            if grade >= level:
                seen += 1
                if cutoff is None or rank <= cutoff:
                    out.append((rank, seen))
        return out


def _div(num: float, den: float) -> float:
    return num / den if den > 0 else 0.0


def _gain(grade: int, dcg: str) -> float:
    g = float(grade) if grade > 0 else 0.0
    return 2.0**g - 1.0 if dcg == "exp-log2" else g


def _discount(rank: int) -> float:
    return math.log2(rank + 1.0)


def _p(m: Measure, q: Query) -> float:
    assert m.cutoff is not None
    return len(q.rel_ranks(m.rel, m.cutoff)) / m.cutoff


def _r(m: Measure, q: Query) -> float:
    return _div(len(q.rel_ranks(m.rel, m.cutoff)), q.nrel(m.rel))


def _num_rel_ret(m: Measure, q: Query) -> float:
    return float(len(q.rel_ranks(m.rel, m.cutoff)))


def _success(m: Measure, q: Query) -> float:
    return 1.0 if q.rel_ranks(m.rel, m.cutoff) else 0.0


def _rr(m: Measure, q: Query) -> float:
    hits = q.rel_ranks(m.rel, m.cutoff)
    return 1.0 / hits[0][0] if hits else 0.0


def _ap(m: Measure, q: Query) -> float:
    return _div(sum(seen / rank for rank, seen in q.rel_ranks(m.rel, m.cutoff)), q.nrel(m.rel))


def _ndcg(m: Measure, q: Query) -> float:
    k = m.cutoff
    dcg = sum(_gain(g, m.dcg) / _discount(r) for r, g in q.judged if k is None or r <= k)
    ideal = sorted((g for g in q.grades if g > 0), reverse=True)[:k]
    idcg = sum(_gain(g, m.dcg) / _discount(i) for i, g in enumerate(ideal, start=1))
    return _div(dcg, idcg)


def _rprec(m: Measure, q: Query) -> float:
    r = q.nrel(m.rel)
    return _div(len(q.rel_ranks(m.rel, r)), r)


def _bpref(m: Measure, q: Query) -> float:
    # trec_eval bpref.c: each relevant document loses the share of judged non-relevant documents
    # above it, capped at R, over min(R, N).
    r, n = q.nrel(m.rel), q.nnon(m.rel)
    total, non_above = 0.0, 0
    for _, grade in q.judged:
        if grade >= m.rel:
            total += 1.0 - min(non_above, r) / min(r, n) if non_above > 0 else 1.0
        elif grade >= 0:
            non_above += 1
    return _div(total, r)


def _infap(m: Measure, q: Query) -> float:
    # trec_eval infAP.c (Yilmaz & Aslam 2006), as metrics.py writes it.
    total, rel_seen, non_above, unj_above = 0.0, 0, 0, 0
    for rank, grade in q.judged:
        if grade >= m.rel:
            rel_seen += 1
            if rank == 1:
                total += 1.0
            else:
                i = float(rank - 1)
                r_above, n_above, u_above = float(rel_seen - 1), float(non_above), float(unj_above)
                total += 1.0 / (i + 1.0) + (i / (i + 1.0)) * ((r_above + n_above + u_above) / i) * (
                    (r_above + INFAP_EPSILON) / (r_above + n_above + 2 * INFAP_EPSILON)
                )
        elif grade >= 0:
            non_above += 1
        else:
            unj_above += 1
    return _div(total, q.nrel(m.rel))


def _judged(m: Measure, q: Query) -> float:
    assert m.cutoff is not None
    hits = sum(1 for r, g in q.judged if g >= 0 and r <= m.cutoff)
    return _div(hits, min(m.cutoff, q.num_ret))


def _iprec_at(m: Measure, q: Query, level: float) -> float:
    needed = math.floor(level * q.nrel(m.rel) + 0.5)  # lround, as more_measures._iprec_agg
    best = [seen / rank for rank, seen in q.rel_ranks(m.rel) if seen >= needed]
    return max(best) if best else 0.0


def _iprec(m: Measure, q: Query) -> float:
    assert m.level is not None
    return _iprec_at(m, q, m.level)


def _iprec_avg(m: Measure, q: Query) -> float:
    return sum(_iprec_at(m, q, level) for level in ELEVEN_POINTS) / len(ELEVEN_POINTS)


def _set(m: Measure, q: Query) -> float:
    a = len(q.rel_ranks(m.rel))
    precision, recall = _div(a, q.num_ret), _div(a, q.nrel(m.rel))
    if m.name == "SetP":
        return precision
    if m.name == "SetR":
        return recall
    b = m.beta
    return (b + 1.0) * precision * recall / (b * precision + recall) if a > 0 else 0.0


def _err(m: Measure, q: Query) -> float:
    assert m.cutoff is not None
    total, reached = 0.0, 1.0
    for rank, grade in q.judged:
        satisfied = (2.0 ** float(min(max(grade, 0), ERR_MAX_GRADE)) - 1.0) / 2.0**ERR_MAX_GRADE
        if rank <= m.cutoff:
            total += satisfied * reached / float(rank)
        reached *= 1.0 - satisfied
    return total


def _rbp(m: Measure, q: Query) -> float:
    p = m.persistence
    if m.name == "RBP":
        return (1.0 - p) * sum(_weights(p, q, m.rel))
    # Residual: what the unjudged ranks and the tail beyond the list could still add.
    return 1.0 - (1.0 - p) * sum(_weights(p, q, 0))


def _weights(p: float, q: Query, level: int) -> list[float]:
    return [math.pow(p, float(r - 1)) for r, g in q.judged if g >= level]


KERNELS: dict[str, Callable[[Measure, Query], float]] = {
    "P": _p,
    "R": _r,
    "NumRelRet": _num_rel_ret,
    "Success": _success,
    "RR": _rr,
    "AP": _ap,
    "GMAP": _ap,  # AP per query; the mean is geometric (eval.means)
    "nDCG": _ndcg,
    "Rprec": _rprec,
    "Bpref": _bpref,
    "infAP": _infap,
    "Judged": _judged,
    "NumRet": lambda m, q: float(q.num_ret),
    "NumRel": lambda m, q: float(q.nrel(m.rel)),
    "NumQ": lambda m, q: 1.0,
    "IPrec": _iprec,
    "IPrecAvg": _iprec_avg,
    "SetP": _set,
    "SetR": _set,
    "SetF": _set,
    "ERR": _err,
    "RBP": _rbp,
    "RBPResid": _rbp,
}


def has_kernels(measures: Iterable[Measure]) -> bool:
    return all(m.name in KERNELS for m in measures)


def evaluate_query(measures: Sequence[Measure], q: Query) -> list[float]:
    return [KERNELS[m.name](m, q) for m in measures]
