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
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Sequence
from itertools import compress, count, repeat
from operator import ge, gt, ne, truediv

from goldset_tui.eval.measures import Measure

INFAP_EPSILON = 0.00001  # trec_eval's infAP.c
ERR_MAX_GRADE = 4  # gdeval.pl's $MAX_JUDGMENT
ELEVEN_POINTS = tuple(i / 10 for i in range(11))


# The grade of a retrieved document the qrels do not hold: below any grade a qrels file can
# give (io.small_trec and io.trec read 64-bit integers), and an int, which compares faster with
# the grades than a float would.
ABSENT = -(2**63) - 1


class Query:
    """One query's ranking as the measures see it: ``found`` holds the grade of each ranked
    document in rank order, :data:`ABSENT` for one not in the qrels (a negative grade is in the
    qrels, pooled but unjudged); ``grades`` the grade of each document in the query's qrels.

    What the measures ask for is computed once and with C-level loops: the ranks of the
    relevant documents at a level, the qrels' grades sorted (counts by bisection), and only
    for the measures that walk every judged document, ``judged``: (rank, grade) pairs."""

    __slots__ = ("_judged", "_ranks", "_sorted", "found", "grades", "num_ret")

    def __init__(self, found: list[int], grades: Iterable[int]):
        self.found = found
        self.grades = grades
        self.num_ret = len(found)
        self._ranks: dict[int, list[int]] = {}
        self._sorted: list[int] | None = None
        self._judged: list[tuple[int, int]] | None = None

    @property
    def judged(self) -> list[tuple[int, int]]:
        """(rank, grade) of each ranked document in the qrels, in rank order."""
        if self._judged is None:
            hit = list(map(ne, self.found, repeat(ABSENT)))
            pairs = zip(compress(count(1), hit), compress(self.found, hit), strict=False)
            self._judged = list(pairs)
        return self._judged

    def ranks(self, level: int) -> list[int]:
        """The ranks of the documents graded ``level`` or more, ascending."""
        if level not in self._ranks:
            self._ranks[level] = list(compress(count(1), map(ge, self.found, repeat(level))))
        return self._ranks[level]

    def hits(self, level: int, cutoff: int | None = None) -> int:
        """Relevant documents at rank ``cutoff`` or above (all without one)."""
        ranks = self.ranks(level)
        return len(ranks) if cutoff is None else bisect_right(ranks, cutoff)

    def sorted_grades(self) -> list[int]:
        if self._sorted is None:
            self._sorted = sorted(self.grades)
        return self._sorted

    def nrel(self, level: int) -> int:
        grades = self.sorted_grades()
        return len(grades) - bisect_left(grades, level)

    def nnon(self, level: int) -> int:
        """Judged non-relevant documents: 0 <= grade < level."""
        grades = self.sorted_grades()
        return bisect_left(grades, level) - bisect_left(grades, 0)


def _div(num: float, den: float) -> float:
    return num / den if den > 0 else 0.0


def _gain(grade: int, dcg: str) -> float:
    g = float(grade) if grade > 0 else 0.0
    return 2.0**g - 1.0 if dcg == "exp-log2" else g


def _discount(rank: int) -> float:
    return math.log2(rank + 1.0)


def _p(m: Measure, q: Query) -> float:
    assert m.cutoff is not None
    return q.hits(m.rel, m.cutoff) / m.cutoff


def _r(m: Measure, q: Query) -> float:
    return _div(q.hits(m.rel, m.cutoff), q.nrel(m.rel))


def _num_rel_ret(m: Measure, q: Query) -> float:
    return float(q.hits(m.rel, m.cutoff))


def _success(m: Measure, q: Query) -> float:
    return 1.0 if q.hits(m.rel, m.cutoff) else 0.0


def _rr(m: Measure, q: Query) -> float:
    return 1.0 / q.ranks(m.rel)[0] if q.hits(m.rel, m.cutoff) else 0.0


def _ap(m: Measure, q: Query) -> float:
    # The precision at each relevant document: (relevant seen so far) / rank, summed in rank
    # order as metrics.py does.
    ranks = q.ranks(m.rel)[: q.hits(m.rel, m.cutoff)]
    return _div(sum(map(truediv, count(1), ranks)), q.nrel(m.rel))


def _ndcg(m: Measure, q: Query) -> float:
    # Only documents with a positive grade gain anything (the others add 0.0, which changes
    # no sum): their ranks and grades in the top k.
    top = q.found[: m.cutoff]
    gained = list(map(gt, top, repeat(0)))
    pairs = zip(compress(count(1), gained), compress(top, gained), strict=False)
    dcg = sum(_gain(g, m.dcg) / _discount(r) for r, g in pairs)
    grades = q.sorted_grades()
    ideal = grades[bisect_right(grades, 0) :][::-1][: m.cutoff]  # positive, descending
    idcg = sum(_gain(g, m.dcg) / _discount(i) for i, g in enumerate(ideal, start=1))
    return _div(dcg, idcg)


def _rprec(m: Measure, q: Query) -> float:
    r = q.nrel(m.rel)
    return _div(q.hits(m.rel, r), r)


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
    start = max(needed, 1)  # the precision at the start-th relevant document onwards
    return max(map(truediv, count(start), q.ranks(m.rel)[start - 1 :]), default=0.0)


def _iprec(m: Measure, q: Query) -> float:
    assert m.level is not None
    return _iprec_at(m, q, m.level)


def _iprec_avg(m: Measure, q: Query) -> float:
    return sum(_iprec_at(m, q, level) for level in ELEVEN_POINTS) / len(ELEVEN_POINTS)


def _set(m: Measure, q: Query) -> float:
    a = q.hits(m.rel)
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
