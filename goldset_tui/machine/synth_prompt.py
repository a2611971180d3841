"""The prompt a model writes synthetic queries with, and the rule that reads its answer.

The built-in prompt asks for queries from someone who has NOT read the document. A model shown a
document and asked "what would lead a user here" copies the document's own words (its headings,
its rare terms), and queries made of a document's words are easy for any retriever to match: the
scores they give are higher than real traffic would give (docs/sampling.md, "Synthetic
queries"). Asking for a searcher who only has the need, not the text, is the mitigation; it does
not remove the effect, which is why ``goldset synth --log`` compares the result with real traffic.

A prompt file is UTF-8 text, the whole of it the user message, with ``{document}`` where the
document's text goes (required) and optionally ``{title}`` and ``{n}`` (the queries asked for).
Only those three are replaced, in one pass, so a document holding ``{n}`` is not filled in.

The answer is read by :func:`parse_queries` (one query per line, as the usual snippet expects,
with what that snippet gets wrong put right; docs/sampling.md says it in full):

1. lines end at ``\\n`` (a ``\\r`` before it is dropped); each is stripped;
2. a leading list mark followed by a space goes (``1.``, ``1)``, ``(1)``, ``-``, ``*``, ``•``;
   ``3.11 notes`` and ``-v flag`` keep theirs), and so does ``Q1:`` or ``Query 1:``;
   then surrounding quotes (``"..."``, ``'...'``, ``“...”``, ``‘...’``, backticks) and
   whitespace;
3. dropped: empty lines; and, counted, a line with no letter or digit (a lone list mark, a rule
   of dashes); a line ending in ``:`` (an introduction: "Here are three
   queries:"); a line of more than ``MAX_WORDS`` words, or one ending in ``.`` with more than
   ``PROSE_WORDS`` words (a sentence of prose, not a query); a repeat of an earlier query of the
   same answer (compared casefolded, whitespace collapsed);
4. the first ``n`` queries left are kept (a model that gives more than asked does not get more);
5. an answer with nothing left is refused for that document: ``empty answer`` when the text was
   blank, ``no queries in the answer (prose only)`` otherwise. Refusals are counted per document,
   never an error of the run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from goldset_tui.errors import InputError
from goldset_tui.machine.prompt import fill, prompt_digest, read_prompt_file

BUILT_IN = "built-in"
PLACEHOLDERS = ("{document}", "{title}", "{n}")
MAX_WORDS = 32
PROSE_WORDS = 8

DEFAULT_PROMPT = """\
We are building a test set for a search engine over a collection of documents. Below is one \
document from the collection.

Write {n} search queries that different people might type into the search box when they need \
what this document offers. These people have NOT seen this document: they do not know its \
title, its headings or its wording. They know only their own problem, and they describe it in \
their own words: often shorter and vaguer than the document, sometimes with a typo, sometimes \
naming a symptom or a goal rather than the document's subject. Do not copy phrases or rare terms \
from the document unless a person who never read it would use them too.

Title: {title}

Document:
{document}

Return only the queries, one per line: no numbering, no quotes, no explanation.
"""

_LIST_MARK = re.compile(
    r"^(?:(?:\(?\d{1,3}[.)\]:]|[-*•·‣▪–—])\s+|(?:q|query)\s*\d{0,3}\s*[:.)]\s*)", re.IGNORECASE
)
_QUOTES = (('"', '"'), ("'", "'"), ("“", "”"), ("‘", "’"), ("`", "`"), ("«", "»"))


@dataclass(frozen=True)
class SynthPrompt:
    template: str
    sha256: str
    source: str  # the file it came from, or BUILT_IN

    def render(self, *, document: str, title: str, n: int) -> str:
        return fill(self.template, {"{document}": document, "{title}": title, "{n}": str(n)})


def load_synth_prompt(path: str | Path | None) -> SynthPrompt:
    """The built-in prompt (None), or the template in ``path``, checked."""
    if path is None:
        return SynthPrompt(DEFAULT_PROMPT, prompt_digest(DEFAULT_PROMPT), BUILT_IN)
    p = Path(path)
    template = read_prompt_file(p)
    if "{document}" not in template:
        raise InputError(p, "the prompt has no {document}: put it where the document's text goes")
    return SynthPrompt(template, prompt_digest(template), str(p.resolve()))


@dataclass
class ParsedQueries:
    queries: list[str] = field(default_factory=list)
    refusal: str | None = None  # why the document gave no query (None: it gave some)
    dropped: int = 0  # lines that were no query (introductions, prose, repeats, extra)


def _unquote(text: str) -> str:
    changed = True
    while changed and len(text) >= 2:
        changed = False
        for left, right in _QUOTES:
            if text.startswith(left) and text.endswith(right) and len(text) > len(left):
                text = text[len(left) : len(text) - len(right)].strip()
                changed = True
    return text


def clean_line(line: str) -> str:
    """One answer line with its list mark, quotes and surrounding whitespace gone."""
    text = line.strip()
    text = _LIST_MARK.sub("", text, count=1).strip()
    return " ".join(_unquote(text).split())


def is_prose(text: str) -> bool:
    words = len(text.split())
    return text.endswith(":") or words > MAX_WORDS or (text.endswith(".") and words > PROSE_WORDS)


def parse_queries(answer: str, n: int) -> ParsedQueries:
    """The queries in ``answer``, by the rule in the module's docstring."""
    out = ParsedQueries()
    if not answer.strip():
        out.refusal = "empty answer"
        return out
    seen: set[str] = set()
    for raw in answer.split("\n"):
        text = clean_line(raw.removesuffix("\r"))
        if not any(c.isalnum() for c in text):
            if text:
                out.dropped += 1  # a lone mark, a rule of dashes
            continue
        key = text.casefold()
        if is_prose(text) or key in seen or len(out.queries) >= n:
            out.dropped += 1
            continue
        seen.add(key)
        out.queries.append(text)
    if not out.queries:
        out.refusal = "no queries in the answer (prose only)"
    return out
