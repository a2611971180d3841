"""The prompt a model judges a pair with: the built-in one, or a file given with ``--prompt``.

The built-in prompt follows UMBRELA (Upadhyay et al., 2024: "UMBRELA: UMbrela is the (Open-Source
Reproduction of the) Bing RELevance Assessor"), which reproduced the prompt Thomas et al. (2024)
found to agree with TREC's assessors about as well as they agree with each other: the four grades
described in words, the searcher's intent considered first, then how well the passage matches it
and how trustworthy it is, then one final whole-number grade. Ours asks, beside the grade, for a
one-sentence rationale and a confidence, which goldset keeps with each label (docs/agreement.md,
"A model as a judge", says how they are read).

A prompt file is UTF-8 text, the whole of it the user message, with ``{query}`` and ``{passage}``
where the query and the document's text go (both required) and optionally ``{title}``, ``{lo}``
and ``{hi}`` (the store's scale). Only those five are replaced: any other brace is the prompt's
own (a JSON example stays as written). What the model saw is recorded by the sha256 of the
template's bytes, and the template itself is kept in the store (``STORE/machine/prompts/``).

The built-in prompt grades 0-3; a store on another scale needs a prompt of its own.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from goldset_tui.errors import InputError
from goldset_tui.model import GradeScale

BUILT_IN = "built-in"
PLACEHOLDERS = ("{query}", "{passage}", "{title}", "{lo}", "{hi}")

DEFAULT_PROMPT = """\
You are a search quality rater. Judge how well a passage answers a search query.

Grade the passage with a whole number from 0 to 3:
3 = the passage is dedicated to the query and contains the exact answer.
2 = the passage holds an answer to the query, but it is unclear or buried among other \
information.
1 = the passage is on the query's topic but does not answer it.
0 = the passage has nothing to do with the query.
Give 1 when the passage is related to the topic but not entirely, 2 when it holds something \
important for the whole query beside other information, and 3 when it is only and entirely about \
the query. When none of these fits, give 0.

Query: {query}

Passage:
{passage}

Split the problem into steps. Consider the searcher's underlying intent. Measure how well the \
passage's content matches a likely intent of the query (M). Measure how trustworthy the passage \
is (T). Weigh these and decide on a final grade (O).

Answer with exactly these three lines and nothing else:
Rationale: <one sentence: why this grade>
Confidence: <a number from 0 to 1: how sure you are of the grade>
Final score: <the grade, one whole number from 0 to 3>
"""


@dataclass(frozen=True)
class JudgePrompt:
    template: str
    sha256: str
    source: str  # the file it came from, or BUILT_IN

    def render(self, *, query: str, passage: str, title: str, scale: GradeScale) -> str:
        """The template with the pair's texts in place (the placeholders only)."""
        values = {
            "{query}": query,
            "{passage}": passage,
            "{title}": title,
            "{lo}": str(scale.min),
            "{hi}": str(scale.max),
        }
        return fill(self.template, values)


def fill(template: str, values: dict[str, str]) -> str:
    """``template`` with each placeholder (a key of ``values``) replaced by its value, in one
    pass left to right, so a document that contains "{query}" is not itself filled in. The judge's
    and the synthesiser's prompts share it."""
    out: list[str] = []
    rest = template
    while rest:
        found = [(rest.find(p), p) for p in values if p in rest]
        if not found:
            out.append(rest)
            break
        at, name = min(found)
        out.append(rest[:at])
        out.append(values[name])
        rest = rest[at + len(name) :]
    return "".join(out)


def prompt_digest(template: str) -> str:
    return hashlib.sha256(template.encode("utf-8")).hexdigest()


def read_prompt_file(p: Path) -> str:
    """A prompt template's text: readable, UTF-8 and not blank, or one line naming the file. The
    judge's and the synthesiser's prompt files are read alike."""
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise InputError(p, f"cannot read the prompt ({exc.strerror})") from None
    try:
        template = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(p, f"the prompt is not UTF-8 (byte {exc.start})") from None
    if not template.strip():
        raise InputError(p, "the prompt is empty")
    return template


def load_prompt(path: str | Path | None, scale: GradeScale) -> JudgePrompt:
    """The built-in prompt (None), or the template in ``path``, checked."""
    if path is None:
        if (scale.min, scale.max) != (0, 3):
            raise InputError(
                None,
                f"the built-in prompt grades 0-3 and this store's scale is {scale.min}-{scale.max}: "
                "give --prompt FILE, a prompt for this scale",
                column="prompt",
            )
        return JudgePrompt(DEFAULT_PROMPT, prompt_digest(DEFAULT_PROMPT), BUILT_IN)
    p = Path(path)
    template = read_prompt_file(p)
    missing = [name for name in ("{query}", "{passage}") if name not in template]
    if missing:
        raise InputError(
            p,
            f"the prompt has no {' and no '.join(missing)}: put {{query}} and {{passage}} where "
            "the query and the document's text go",
        )
    return JudgePrompt(template, prompt_digest(template), str(p.resolve()))
