"""Read a small TREC run or qrels file in plain Python, or say that Polars must read it.

``goldset eval`` on a small input (Robust 2003: 100 topics, 100,000 lines) spent more time
importing Polars than evaluating. These readers parse such inputs without Polars and accept
exactly a subset of what :mod:`goldset_tui.io.trec` accepts, with the same values: any doubt
(a line that is not plainly N whitespace-separated fields, a number written in a form the
strict patterns below do not cover, a non-finite score, a repeated document, a byte that is not
UTF-8, an unusual whitespace character, no record) raises :class:`Doubt`, and the caller hands
the same :class:`~goldset_tui.io.sources.Source` to the Polars reader, which gives the same
answer or the one-line error. So no error message is written twice, and the two paths cannot
disagree on what a file holds (tests/unit/eval/test_small_path.py checks it on every peer file
and on generated files).

Layout rules, those of read_run's careful path: a line is stripped; blank lines and lines whose
first character is ``#`` are skipped; fields are split on runs of spaces and tabs.
"""

from __future__ import annotations

import math
import re

from goldset_tui.io.sources import Source

RUN_FIELD_COUNT = 6  # query_id Q0 doc_id rank score tag
QRELS_FIELD_COUNT = 4  # query_id iteration doc_id grade
# Numbers in the forms Polars reads as the same value (checked by the equivalence tests);
# anything else (`1_0`, `0x1`, `nan`, other scripts' digits) goes to Polars, which decides.
_SCORE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_GRADE = re.compile(r"[+-]?[0-9]+")
_INT64 = 2**63
# Whitespace other than space, tab and newline: Python's str.split, Polars' CSV reader and its
# regular expressions do not agree on it (\r, \v, \x1c, U+00A0, U+2028 ...).
_ODD_SPACE = re.compile(r"[^\S \t\n]")

Run = dict[str, list[tuple[float, str]]]  # query -> (score, doc) in file order
Qrels = dict[str, dict[str, int]]  # query -> doc -> grade, in file order


class Doubt(Exception):
    """Polars must read this input: it gives the answer or the error."""


def _records(src: Source, fields: int) -> list[list[str]]:
    try:
        text = src.read_bytes().decode("utf-8")
    except (UnicodeDecodeError, OSError):
        raise Doubt from None
    if text.startswith("\ufeff") or _ODD_SPACE.search(text):
        raise Doubt
    out = []
    for line in text.split("\n"):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        if len(parts) != fields:
            raise Doubt
        out.append(parts)
    if not out:
        raise Doubt
    return out


def read_run_small(src: Source) -> Run:
    """Each query's ``(score, doc_id)`` pairs, in file order."""
    run: Run = {}
    seen: set[tuple[str, str]] = set()
    for qid, _, doc, _, score_text, _ in _records(src, RUN_FIELD_COUNT):
        if not _SCORE.fullmatch(score_text):
            raise Doubt
        score = float(score_text)
        if not math.isfinite(score) or (qid, doc) in seen:
            raise Doubt
        seen.add((qid, doc))
        run.setdefault(qid, []).append((score, doc))
    return run


def read_qrels_small(src: Source) -> Qrels:
    """Each query's grades by document; the same judgment repeated is kept once, and two
    different grades for one document are read_qrels' error to name."""
    qrels: Qrels = {}
    for qid, _, doc, grade_text in _records(src, QRELS_FIELD_COUNT):
        if not _GRADE.fullmatch(grade_text):
            raise Doubt
        grade = int(grade_text)
        if not -_INT64 <= grade < _INT64:
            raise Doubt
        grades = qrels.setdefault(qid, {})
        if grades.setdefault(doc, grade) != grade:
            raise Doubt
    return qrels
