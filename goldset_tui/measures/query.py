"""One query's ranking as the plain-Python kernels see it, and what they share.

The kernels (each beside its Polars expression in the registry's modules) score one query at a
time from a :class:`Query`; ``eval.small`` builds it from the small readers' dicts. The
constants are the measures' sources' own, shared by both engines.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from itertools import compress, count, repeat
from operator import ge, ne

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


def div(num: float, den: float) -> float:
    return num / den if den > 0 else 0.0


def gain(grade: int, dcg: str) -> float:
    g = float(grade) if grade > 0 else 0.0
    return 2.0**g - 1.0 if dcg == "exp-log2" else g


def discount(rank: int) -> float:
    return math.log2(rank + 1.0)
