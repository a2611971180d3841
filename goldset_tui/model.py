"""The nouns goldset works with: the grade scale, a judgment, the pool's columns.

Plain data, no I/O and no Textual, so a notebook can build them by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# --- Pool files -------------------------------------------------------------------------------
# One row per (query, candidate); the columns and their types are io.pool_schema.FRAME_SCHEMA.
POOL_KEY = ("query_id", "doc_id")
# What tables and JSON group the queries (or candidates) no stratum names under: a query missing
# from the strata file, a pool row with an empty stratum.
NO_STRATUM = "(no stratum)"
# The same group as agreement's per-stratum results and `goldset check`'s summary have always
# named it: a JSON key scripts may read (docs/agreement.md), so it keeps its spelling.
NO_STRATUM_SHORT = "(none)"

# --- Grades -----------------------------------------------------------------------------------
DEFAULT_GRADE_LABELS = {
    0: "not relevant",
    1: "related",
    2: "highly relevant",
    3: "perfectly relevant",
}

# The instruction decides whether a query with three answers gets three judgments
# (docs/background.md#judge-the-pool).
DEFAULT_GUIDELINES = (
    "Judge every document in the pool, independently of the others, against this query.\n\n"
    "Do not stop at the first correct document: a query with three answers should get three "
    "relevant grades. Grade each candidate on its own merits, not relative to the others you "
    "have seen.\n\n"
    "0 not relevant: does not help answer the query.\n"
    "1 related: on the topic, but does not answer it.\n"
    "2 highly relevant: answers the query, or a large part of it.\n"
    "3 perfectly relevant: the document a user asking this query is looking for."
)


@dataclass(frozen=True)
class GradeScale:
    """An inclusive integer scale with a label per grade (default 0-3)."""

    labels: dict[int, str] = field(default_factory=lambda: dict(DEFAULT_GRADE_LABELS))

    def __post_init__(self) -> None:
        if not self.labels:
            raise ValueError("a grade scale needs at least one grade")
        grades = sorted(self.labels)
        if grades != list(range(grades[0], grades[-1] + 1)):
            raise ValueError(f"grades must be consecutive integers, got {grades}")

    @property
    def min(self) -> int:
        return min(self.labels)

    @property
    def max(self) -> int:
        return max(self.labels)

    @property
    def grades(self) -> list[int]:
        return list(range(self.min, self.max + 1))

    def __contains__(self, grade: object) -> bool:
        return (
            isinstance(grade, int) and not isinstance(grade, bool) and self.min <= grade <= self.max
        )

    @classmethod
    def from_range(cls, lo: int, hi: int) -> GradeScale:
        """Grades ``lo`` to ``hi``, each labelled by its place on the scale, as a store made with
        ``--scale LO-HI`` is (:func:`relevance_scale`): on 1-5, grade 1 is "not relevant". (Looking
        each grade up by its number in the 0-3 labels read 1 as "related" and 3 as "perfectly
        relevant" there.) Grades below 0 (TREC's junk and spam) keep their number, 0 stays
        "not relevant"; one grade alone is its number; ``lo > hi`` is no scale (ValueError)."""
        if lo > hi:
            return cls({})  # refused by __post_init__: a scale needs a grade
        if lo == hi:
            return cls({lo: str(lo)})
        below = {g: str(g) for g in range(lo, min(0, hi + 1))}
        if hi <= 0:
            return cls({**below, 0: DEFAULT_GRADE_LABELS[0]} if hi == 0 else below)
        return cls({**below, **relevance_scale(max(lo, 0), hi).labels})

    def all_relevant_at(self, level: int = 1) -> str | None:
        """Why relevance at grade >= ``level`` (trec_eval's convention, level 1) misreads this
        scale, or None: on a scale that starts at ``level`` or above (1-5, say) every judged
        document counts as relevant, so P, R, AP and RR say nothing (validate's "what if" is
        refused there). The grades are not shifted: the caller warns (docs/eval.md)."""
        if self.min < level:
            return None
        return (
            f"the grades run {self.min}-{self.max}: with grade >= {level} relevant (trec_eval's "
            "convention) every judged document counts as relevant"
        )

    def to_toml(self) -> dict[str, str]:
        # TOML keys are strings.
        return {str(g): label for g, label in sorted(self.labels.items())}

    @classmethod
    def from_toml(cls, table: dict[str, str]) -> GradeScale:
        return cls({int(g): str(label) for g, label in table.items()})


def relevance_scale(lo: int, hi: int) -> GradeScale:
    """The scale a store is made with (``--scale LO-HI``): 0-3 is the default scale; other
    ranges get relevance words on the grades a ladder of that length has (2 to 5 grades), else
    words on both ends and the number between (the manifest's ``[scale]`` can rename any)."""
    if (lo, hi) == (0, 3):
        return GradeScale()
    n = hi - lo + 1
    words = _LADDERS.get(n) or (
        "not relevant",
        *(str(g) for g in range(lo + 1, hi)),
        "perfectly relevant",
    )
    return GradeScale(dict(zip(range(lo, hi + 1), words, strict=True)))


_LADDERS: dict[int, tuple[str, ...]] = {
    2: ("not relevant", "relevant"),
    3: ("not relevant", "related", "highly relevant"),
    4: tuple(DEFAULT_GRADE_LABELS.values()),
    5: ("not relevant", "related", "relevant", "highly relevant", "perfectly relevant"),
}


def guidelines_for(scale: GradeScale) -> str:
    """The guidelines a new store starts with: the default ones on the default scale; on another
    scale the same instruction, then one line per grade of that scale (the 0-3 lines would name
    grades the store does not have, and keys the screen does not take)."""
    if scale == GradeScale():
        return DEFAULT_GUIDELINES
    instruction = DEFAULT_GUIDELINES.split("\n\n0 ")[0]
    grades = "\n".join(
        f"{g} {scale.labels[g]}." if scale.labels[g] != str(g) else f"{g}." for g in scale.grades
    )
    return f"{instruction}\n\nGrades {scale.min}-{scale.max}:\n{grades}"


@dataclass(frozen=True)
class Judgment:
    """One grade given by one labeller to one (query, document) pair.

    ``grade`` None records an undo of that labeller's previous grade for the pair. ``position`` is
    the 0-based place the document was shown at in the labeller's (shuffled) order, kept so that
    position bias can be checked later. ``seconds`` is the time spent on it.
    """

    labeller: str
    query_id: str
    doc_id: str
    grade: int | None
    time: str  # ISO 8601, UTC
    seconds: float = 0.0
    position: int | None = None
    note: str | None = None
    kind: str = "judge"  # judge | undo | note | repeat
