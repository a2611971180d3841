"""Read a small TREC run or qrels file in plain Python, or say that Polars must read it.

``goldset eval`` on a small input (Robust 2003: 100 topics, 100,000 lines) spent more time
importing Polars than evaluating. These readers parse such inputs without Polars and accept
exactly a subset of what :mod:`goldset_tui.io.trec` accepts, with the same values: any doubt
(a line that is not plainly N whitespace-separated fields, a number written in a form other
than plain decimal digits, sign, point and exponent, a non-finite score, a repeated document, a
byte that is not UTF-8, an unusual whitespace character, no record) raises :class:`Doubt`, and
the caller hands the same :class:`~goldset_tui.io.sources.Source` to the Polars reader, which
gives the same answer or the one-line error. So no error message is written twice, and the two
paths cannot disagree on what a file holds (tests/unit/eval/test_small_path.py checks it on
every peer file and on generated files).

Layout rules, those of read_run: a line is stripped; blank lines and lines whose first character
is ``#`` are skipped; fields are split on runs of spaces, or on runs of tabs (a file holding both
is Polars' to read).

Speed: the text stays bytes (ASCII only: anything else is Polars' to read), whose objects
cost less to make than strings; query ids become strings, document ids stay bytes (the run's and
the qrels' alike, compared and looked up as such; ASCII bytes order as their text does). A
file whose fields are separated by spaces or by tabs (one kind only), with no comment line, is
checked and split with whole-text methods and column slices, no Python loop over lines; any
other goes through a loop over lines.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from itertools import accumulate, compress, groupby
from operator import eq, ge, gt, itemgetter
from typing import Any

from goldset_tui.io.sources import Source

RUN_FIELD_COUNT = 6  # query_id Q0 doc_id rank score tag
QRELS_FIELD_COUNT = 4  # query_id iteration doc_id grade
# Python's int() reads these characters exactly as Polars does (no `_`, other scripts' digits
# or surrounding spaces can get through); anything else is Polars'. Scores: see read_run_small.
_GRADE_CHARS = b"0123456789+-"
_INT64 = 2**63
# A run whose lines are not grouped by query costs the plain reader a sort: above about 4 MB
# Polars is then faster (measured: a shuffled 2.1 MB run 0.23 s of CPU here against 0.46 s with
# Polars, a shuffled 7.2 MB one 1.09 s against 0.58 s; a grouped 3.6 MB run with its 2.7 MB
# qrels 0.50 s against 0.65 s).
SHUFFLED_BYTES = 4_000_000
# Whitespace other than space, tab and newline: Python's split, Polars' CSV reader and its
# regular expressions do not agree on it.
_ODD_ASCII_SPACE = b"\r\x0b\x0c\x1c\x1d\x1e\x1f"
_MARK = b"\x00"  # the end of a record among the fields (a text holding one is read line by line)

Qrels = dict[str, dict[bytes, int]]  # query -> doc (ASCII bytes) -> grade, in file order


class Doubt(Exception):
    """Polars must read this input: it gives the answer or the error."""


def _text(src: Source) -> bytes:
    try:
        data = src.read_bytes()
    except OSError:
        raise Doubt from None
    # Non-ASCII text (ids in other scripts, bytes that are not UTF-8) is Polars' to read:
    # Unicode whitespace is where the readers could disagree, and small inputs are nearly
    # always ASCII.
    if not data.isascii() or any(c in data for c in _ODD_ASCII_SPACE):
        raise Doubt
    return data


def _columns(text: bytes, fields: int) -> list[bytes]:
    """Every field of every record, flat, each record followed by a :data:`_MARK` token
    (record i is ``[i * (fields + 1):i * (fields + 1) + fields]``; the last one's may be
    missing)."""
    if (b" " in text and b"\t" in text) or _MARK in text:
        return list(_careful(text, fields))  # both separators: each line is checked
    # Each newline gets a marker token: one C-level split of the whole text on runs of
    # whitespace (lines stripped, as read_run does), and where the markers fall proves the
    # layout: no field holds one, so if every (fields + 1)-th token is a marker, and there are
    # as many as newlines, every line holds exactly ``fields`` fields (a blank line would put
    # two markers side by side).
    marked = text.replace(b"\n", b"\n" + _MARK + b"\n")
    tokens = marked.split()
    newlines = (len(marked) - len(text)) // 2
    step = fields + 1
    in_place = tokens[fields::step].count(_MARK) == newlines
    if not (in_place and len(tokens) in (step * newlines, step * newlines + fields)):
        return list(_careful(text, fields))
    if b"#" in text and b"\n#" in b"\n" + b"\n".join(tokens[0::step]):
        return list(_careful(text, fields))  # a comment line: skipped there
    return tokens


def _careful(text: bytes, fields: int) -> Iterator[bytes]:
    both = b" " in text and b"\t" in text
    for line in text.split(b"\n"):
        parts = line.split()  # on spaces, tabs (and the odd whitespace, refused above)
        if not parts or parts[0].startswith(b"#"):
            continue
        if len(parts) != fields or (both and _ambiguous(line, fields)):
            raise Doubt
        yield from parts
        yield _MARK


def _ambiguous(line: bytes, fields: int) -> bool:
    """Whether Polars' single-separator reader could read this line with a space inside a
    tab-separated field, or a tab inside a space-separated one (`q Q0 \td 1 0.5 t` read on
    spaces has the document '\td', where a whitespace split has 'd')."""
    # Only the id fields matter: a number padded with the other separator (trec_eval's own
    # `302\tQ0\tdoc\t1\t  1.58\tSTANDARD`) has one value either way, and any other field
    # holding it has too many fields once split on whitespace.
    for sep, other in ((b" ", b"\t"), (b"\t", b" ")):
        parts = line.split(sep)
        whole = len(parts) >= fields and all(parts[:fields]) and not any(parts[fields:])
        if whole and (other in parts[0] or other in parts[2]):
            return True
    return False


def _blocks(qids: list[bytes], *columns: list[Any], size: int = 0) -> tuple[list[Any], ...]:
    """The columns with each query's lines together, and the starts of each run of equal
    consecutive ids (then the end): as they are when the file is grouped by query (TREC runs
    usually are), else after a stable sort by query (a shuffled run would make a block of
    every line). A shuffled file over :data:`SHUFFLED_BYTES` is Polars' to read."""
    starts = _starts(qids)
    if len(starts) - 1 < 2 * len({qids[i] for i in starts[:-1]}):  # few queries in two places
        return (starts, qids, *columns)
    if size > SHUFFLED_BYTES:
        raise Doubt
    order = sorted(range(len(qids)), key=qids.__getitem__)
    pick = itemgetter(*order)  # several lines (two blocks at least): it gives tuples
    picked = [list(pick(column)) for column in (qids, *columns)]
    return (_starts(picked[0]), *picked)


def _starts(qids: list[bytes]) -> list[int]:
    """Where each run of equal consecutive ids starts, then the end (C-level comparisons)."""
    return [0, *accumulate(len(list(run)) for _, run in groupby(qids))]


class Ranking:
    """One query's documents (ASCII bytes) in trec_eval's order (score descending, ties by
    document id descending) and their scores; iterating gives ``(score, doc_id)`` pairs, the
    id as text (for tests and tools: the evaluation uses ``docs``)."""

    __slots__ = ("docs", "scores")

    def __init__(self, docs: list[bytes], scores: list[float]):
        self.docs = docs
        self.scores = scores

    def __iter__(self) -> Iterator[tuple[float, str]]:
        return zip(self.scores, (d.decode() for d in self.docs), strict=True)

    def __len__(self) -> int:
        return len(self.docs)


def ranking(scores: list[float], docs: list[bytes]) -> Ranking:
    """``docs`` (distinct) ranked by ``scores``. Runs are usually written in this order: a
    block already in it is recognised with C-level comparisons and kept as it is (Python
    compares strings by code point, the order of their UTF-8 bytes, as Polars and trec_eval's
    strcmp; -0.0 ties with 0.0); any other is sorted."""
    after = scores[1:]
    if not all(map(gt, scores, after)):  # ties, or not in order
        ties = list(map(eq, scores, after))
        ordered = all(map(ge, scores, after)) and all(
            map(gt, compress(docs, ties), compress(docs[1:], ties))
        )
        if not ordered:
            pairs = sorted(zip(scores, docs, strict=True), reverse=True)
            scores, docs = [s for s, _ in pairs], [d for _, d in pairs]
    return Ranking(docs, scores)


Run = dict[str, Ranking]  # query -> its documents ranked


def read_run_small(src: Source) -> Run:
    """Each query's documents ranked, with their scores."""
    text = _text(src)
    tokens = _columns(text, RUN_FIELD_COUNT)
    step = RUN_FIELD_COUNT + 1
    qids, docs, texts = tokens[0::step], tokens[2::step], tokens[4::step]
    del tokens  # the other fields, freed now
    if not qids:
        raise Doubt
    try:
        scores = list(map(float, texts))
    except ValueError:
        raise Doubt from None
    # float() reads what Polars reads, and more: `nan`, `inf` (and 1e999, read as inf), and
    # `_` between digits. A finite sum rules out the first two (an overflowing one only sends
    # the file to Polars); an underscore anywhere is looked for in the scores.
    if not math.isfinite(sum(scores)) or (b"_" in text and b"_" in b"".join(texts)):
        raise Doubt
    starts, qids, docs, scores = _blocks(qids, docs, scores, size=src.size())
    blocks: dict[str, tuple[list[float], list[bytes]]] = {}
    for a, b in zip(starts, starts[1:], strict=False):
        qid = qids[a].decode()
        if qid in blocks:  # the query's lines are in two places (a run only mostly grouped)
            blocks[qid][0].extend(scores[a:b])
            blocks[qid][1].extend(docs[a:b])
        else:
            blocks[qid] = (scores[a:b], docs[a:b])
    run: Run = {}
    for qid, (block_scores, block_docs) in blocks.items():
        if len(set(block_docs)) != len(block_docs):
            raise Doubt  # a document twice: read_run names the line
        run[qid] = ranking(block_scores, block_docs)
    return run


def read_qrels_small(src: Source) -> Qrels:
    """Each query's grades by document; the same judgment repeated is kept once, and two
    different grades for one document are read_qrels' error to name."""
    tokens = _columns(_text(src), QRELS_FIELD_COUNT)
    step = QRELS_FIELD_COUNT + 1
    qids, docs, texts = tokens[0::step], tokens[2::step], tokens[3::step]
    del tokens
    # A few distinct grades: each read once, then looked up.
    distinct = set(texts)
    if not qids or b"".join(distinct).translate(None, _GRADE_CHARS):
        raise Doubt
    try:
        values = {text: int(text) for text in distinct}
    except ValueError:
        raise Doubt from None
    if not all(-_INT64 <= v < _INT64 for v in values.values()):
        raise Doubt
    grades = list(map(values.__getitem__, texts))
    starts, qids, docs, grades = _blocks(qids, docs, grades, size=src.size())
    qrels: Qrels = {}
    for a, b in zip(starts, starts[1:], strict=False):
        qid = qids[a].decode()
        block = dict(zip(docs[a:b], grades[a:b], strict=True))
        if len(block) != b - a and len(set(zip(docs[a:b], grades[a:b], strict=True))) != len(block):
            raise Doubt  # one document, two grades
        if qid in qrels:  # the query's lines are in two places: check across both
            earlier = qrels[qid]
            if any(earlier.get(d, g) != g for d, g in block.items()):
                raise Doubt
            earlier.update(block)
        else:
            qrels[qid] = block
    return qrels
