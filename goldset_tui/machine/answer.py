"""Reading a grade out of a model's answer, or refusing it.

A model's answer is text, and text can be wrong in many ways; a wrong grade read as a right one
is worse than no grade, because it enters the agreement figures unseen. So the rule is strict and
written down (docs/agreement.md, "A model as a judge", repeats it):

1. An empty answer (nothing but white space) is refused: "empty answer".
2. A **score line**: a line that starts (after any of ``#*>_-`` and spaces, as Markdown headings
   and bold come) with ``final score``, ``final grade``, ``score``, ``grade`` or ``relevance``,
   then ``:`` or ``=``, then the value. When the answer has score lines, they decide, whatever
   other numbers the prose holds: they must all give the same value, which must be a whole
   number (``2``, ``2.0``, ``**2**``, ``2.``) on the store's scale. Two score lines that disagree
   are refused ("two different grades"), as is a value that is not a whole number (``2.5``,
   ``2/3``, ``two``) or one off the scale (``7`` on 0-3, ``-1``).
3. **No score line**: the answer's numbers are counted, leaving out the confidence line. Exactly
   one number in the whole answer is the grade ("I would give this a 2." reads 2); it must be a
   whole number on the scale. None is refused ("no grade in the answer"); several are refused
   ("several numbers and no score line": in "2 or 3", "grade 2 of 0-3", which one the model meant
   is a guess). Digits inside words (``utf8``, ``q2``) are not numbers.

The confidence: a line ``confidence: X`` with X from 0 to 1, or a percentage (``80%`` reads
0.8). A missing or unreadable confidence leaves it empty; it never refuses the grade.
The rationale: a line ``rationale: ...`` (and any lines after it up to the next score or
confidence line), else the whole answer less its score and confidence lines; white space runs
become one space, and it is cut at 1,000 characters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from goldset_tui.model import GradeScale

RATIONALE_LIMIT = 1000
_LEAD = r"^[\s#*>_\-]*"
_SCORE = re.compile(
    _LEAD + r"(?:final\s+score|final\s+grade|score|grade|relevance)\s*\**\s*[:=]\s*(?P<value>.*)$",
    re.I,
)
_CONFIDENCE = re.compile(_LEAD + r"confidence\s*\**\s*[:=]\s*(?P<value>.*)$", re.I)
_RATIONALE = re.compile(_LEAD + r"rationale\s*\**\s*[:=]\s*(?P<value>.*)$", re.I)
# A number standing alone: not inside a word (q2, utf8) nor part of a longer number.
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?![\w]|\.\d)")
_WHOLE_VALUE = re.compile(r"[*_\s]*(?P<n>[-+]?\d+(?:\.0+)?)[*_\s.]*")


@dataclass(frozen=True)
class Answer:
    grade: int | None
    confidence: float | None
    rationale: str | None
    refusal: str | None  # why no grade was read (None: a grade was)


def _grade_of(value: str, scale: GradeScale) -> tuple[int | None, str | None]:
    match = _WHOLE_VALUE.fullmatch(value)
    if match is None:
        shown = " ".join(value.split())[:40]
        return None, f"the grade {shown!r} is not a whole number"
    grade = int(float(match.group("n")))
    if not scale.min <= grade <= scale.max:
        return None, f"the grade {grade} is off the scale {scale.min}-{scale.max}"
    return grade, None


def _confidence(lines: list[str]) -> float | None:
    for line in lines:
        match = _CONFIDENCE.match(line)
        if match is None:
            continue
        text = match.group("value").strip().strip("*_ .")
        try:
            value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            return None
        return value if 0.0 <= value <= 1.0 else None
    return None


def _rationale(lines: list[str]) -> str | None:
    kept: list[str] = []
    started = False
    for line in lines:
        match = _RATIONALE.match(line)
        if match is not None:
            kept, started = [match.group("value")], True
            continue
        if _SCORE.match(line) or _CONFIDENCE.match(line):
            if started:
                break
            continue
        if started or not any(_RATIONALE.match(x) for x in lines):
            kept.append(line)
    text = " ".join(" ".join(kept).split())
    return text[:RATIONALE_LIMIT] or None


def read_answer(text: str, scale: GradeScale) -> Answer:
    """The grade, confidence and rationale in ``text`` (see the module's rule), or a refusal."""
    if not text.strip():
        return Answer(None, None, None, "empty answer")
    lines = text.splitlines()
    confidence = _confidence(lines)
    rationale = _rationale(lines)
    scores = [m.group("value") for m in map(_SCORE.match, lines) if m is not None]
    if scores:
        values = sorted({" ".join(v.split()).strip("*_ .") for v in scores})
        if len(values) > 1:
            shown = ", ".join(values[:3])
            return Answer(None, confidence, rationale, f"two different grades ({shown})")
        grade, refusal = _grade_of(scores[0], scale)
        return Answer(grade, confidence, rationale, refusal)
    prose = "\n".join(line for line in lines if not _CONFIDENCE.match(line))
    numbers = _NUMBER.findall(prose)
    if not numbers:
        return Answer(None, confidence, rationale, "no grade in the answer")
    if len(numbers) > 1:
        shown = ", ".join(numbers[:4])
        return Answer(None, confidence, rationale, f"several numbers and no score line ({shown})")
    grade, refusal = _grade_of(numbers[0], scale)
    return Answer(grade, confidence, rationale, refusal)
