"""The query-shape rules: six strata, first match wins. Replaceable (see ``load_rules``).

The rules, in order (why these: docs/background.md#strata-follow-mechanisms):

1. ``exact_identifier``: an identifier-shaped token, ``IDENT`` below (``ERR_4021``, ``user_id``,
   ``getUserById``, ``/v2/``).
2. ``negation``: a negation word (``NEGATION``) among the tokens.
3. ``misspelled``: an alphabetic token not in the vocabulary (skipped when there is no vocabulary).
4. ``short_keyword``: three tokens or fewer.
5. ``multi_entity``: two or more title-cased tokens after the first (``Stripe`` and ``Salesforce``).
6. ``paraphrase``: everything else.

Where the usual snippet for these rules (transcribed as ``seed_stratum`` in
tests/unit/sampling/test_sampling_rules.py) is fragile, and what we do instead:

- It lowercases the tokens but runs ``IDENT`` on the text it was given. ``IDENT``'s camelCase
  alternative (``[a-z]+[A-Z]``) and its ``[A-Z]{2,}_\\d+`` alternative need the original case, and
  goldset normalises (lowercases) queries first. So every rule here reads the query's *spelling*
  (its most frequent original form, see ``normalise``), and lowercases only where the snippet does.
- Its ``multi_entity`` test calls ``istitle()`` on the *lowercased* tokens, which is never true:
  the stratum can never be reached. We test title case on the original tokens.
- Even on the original text, ``istitle()`` counts a sentence's capitalised first word and the
  pronoun ``I``: ``How do I rotate an API key`` would be two entities. We do not count the first
  token, nor ``I``.
- Its tokens keep punctuation, so ``not,`` is no negation and ``paginaton?`` is not alphabetic
  and so never misspelled. We strip punctuation from the ends of each token for rules 2 and 3.

The default implementation is vectorised in Polars (no Python loop over queries). A replacement is
any function ``rule(spelling: str, vocab: frozenset[str] | None) -> str`` named on the command line
as ``module:function`` or ``path/to/file.py:function``; it is called once per distinct query.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from collections.abc import Callable
from pathlib import Path
from typing import cast

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.sampling.normalise import collapse

STRATA = (
    "exact_identifier",
    "negation",
    "misspelled",
    "short_keyword",
    "multi_entity",
    "paraphrase",
)

# The snippet's expression, verbatim: what Python's re runs. The rules give the stratum Python's
# re and str methods give on every string, so Polars (Rust's regex) runs a translation of it,
# below.
IDENT = r"[A-Z]{2,}_\d+|\b\w+_\w+\b|\b[a-z]+[A-Z]\w+\b|/v\d+/"
NEGATION = ("not", "without", "except", "excluding", "unsupported", "cannot")
SHORT_TOKENS = 3
MIN_ENTITIES = 2

# Python's \w is a letter, a number or "_" (str.isalnum() or "_"); Rust's \w also takes combining
# marks, connector punctuation other than "_" and joiners, and leaves out numbers such as "²"
# and "①". So "e\u0301_x" is no identifier to Python and one to Rust. Rust's \b follows its own
# \w, so the translation spells the boundaries out: a run of word characters is bounded by a
# non-word character or an end of the string. (Checked on every code point Python 3.11 knows.)
_W = r"[\p{L}\p{N}_]"
_NW = r"[^\p{L}\p{N}_]"
IDENT_POLARS = (
    r"[A-Z]{2,}_\d+"  # \d is Unicode's decimal digits (Nd) in both
    rf"|(?:^|{_NW}){_W}+_{_W}+(?:{_NW}|$)"  # \b\w+_\w+\b: a word run with an inner "_"
    rf"|(?:^|{_NW})[a-z]+[A-Z]{_W}+(?:{_NW}|$)"  # \b[a-z]+[A-Z]\w+\b: a run starting camelCase
    r"|/v\d+/"
)

# Punctuation stripped from token ends before the negation and spelling checks.
EDGE_PUNCTUATION = ".,;:!?\"'()[]{}"
# Python's str.isalpha(): every character a Unicode letter.
_ALPHA = r"^\p{L}+$"
# Python's str.istitle() for one token: each run of cased characters is one upper (or title)
# case character followed by lower case ones, and there is at least one such run. "Upper" and
# "lower" are Unicode's Uppercase and Lowercase properties, not the letter categories: the Roman
# numeral "Ⅻ" and the circled "Ⓐ" are uppercase to Python though they are not letters.
_UPPER = r"[\p{Uppercase}\p{Lt}]"
_LOWER = r"\p{Lowercase}"
_NOT_CASED = r"[^\p{Uppercase}\p{Lowercase}\p{Lt}]"
_TITLE = rf"^{_NOT_CASED}*(?:{_UPPER}{_LOWER}*{_NOT_CASED}+)*{_UPPER}{_LOWER}*{_NOT_CASED}*$"

Rule = Callable[[str, "frozenset[str] | None"], str]


# Rule 2 on the whole lowercased spelling: a token that is a negation word once the edge
# punctuation is stripped (the words hold none of it, so it may only surround them).
_EDGE = "[" + re.escape(EDGE_PUNCTUATION) + "]*"
_NEGATED = rf"(?:^| ){_EDGE}(?:{'|'.join(NEGATION)}){_EDGE}(?: |$)"


def classify_frame(
    spellings: pl.Series,
    vocab: frozenset[str] | None,
    *,
    collapsed: bool = False,
    lowered: pl.Series | None = None,
) -> pl.Series:
    """The stratum of each spelling (a ``str`` Series), by the query-shape rules, vectorised.
    ``collapsed``: the spellings are already trimmed with whitespace collapsed (a log's are);
    ``lowered``: their lowercase forms, when the caller has them (a log's normal forms).

    Whole-string expressions where a rule allows (the identifier, the negation words, the
    number of tokens: tokens are the pieces between single spaces), lists of tokens where it
    does not (the vocabulary, title case); no Python per query. Lowercasing the whole spelling
    gives the tokens' own lowercase forms: a space is neither cased nor case-ignorable, so the
    one context-dependent mapping (a final capital sigma) reads the same context either way.

    The list-of-tokens tests are the costly ones (about three in four of the rules' time on a
    log of distinct queries), so each runs only where its answer can matter or in its cheap
    form where that is exact: title case only on the rows no earlier rule took that have more
    than three tokens; the vocabulary test strips edge punctuation only in rows that hold some
    (elsewhere a token is its own stripped form)."""
    spelling = pl.col("spelling")
    frame = pl.DataFrame({"spelling": spellings.cast(pl.Utf8)})
    if not collapsed:
        frame = frame.with_columns(collapse(spelling))
    if lowered is None or not collapsed:
        frame = frame.with_columns(spelling.str.to_lowercase().alias("lower"))
    else:
        frame = frame.with_columns(lowered.cast(pl.Utf8).alias("lower"))
    lower = pl.col("lower")
    n_tokens = (
        pl.when(spelling == "").then(0).otherwise(spelling.str.count_matches(" ", literal=True) + 1)
    )
    checks = frame.select(
        spelling.str.contains(IDENT_POLARS).alias("ident"),
        lower.str.contains(_NEGATED).alias("negation"),
        n_tokens.alias("n_tokens"),
    )
    taken = checks.get_column("ident") | checks.get_column("negation")
    misspelled = _misspelled(frame, vocab)
    taken = taken | misspelled
    short = checks.get_column("n_tokens") <= SHORT_TOKENS
    entities = _entities(frame, ~(taken | short))
    ident, negation = (pl.col(name) for name in ("ident", "negation"))
    stratum = (
        pl.when(ident)
        .then(pl.lit("exact_identifier"))
        .when(negation)
        .then(pl.lit("negation"))
        .when(pl.col("misspelled"))
        .then(pl.lit("misspelled"))
        .when(pl.col("short"))
        .then(pl.lit("short_keyword"))
        .when(pl.col("entities"))
        .then(pl.lit("multi_entity"))
        .otherwise(pl.lit("paraphrase"))
    )
    decided = checks.with_columns(
        misspelled.alias("misspelled"), short.alias("short"), entities.alias("entities")
    )
    return decided.select(stratum.alias("stratum")).get_column("stratum")


_EDGE_CHAR = "[" + re.escape(EDGE_PUNCTUATION) + "]"


def _misspelled(frame: pl.DataFrame, vocab: frozenset[str] | None) -> pl.Series:
    """Rule 3 per row of ``frame`` (``lower``): an alphabetic token, edge punctuation stripped,
    that is not in the vocabulary. A row without edge punctuation tests its tokens as they are;
    only rows with some strip it (the strip is the rule's costliest step)."""
    if vocab is None:
        return pl.repeat(False, frame.height, dtype=pl.Boolean, eager=True)
    words = pl.Series("vocab", sorted(vocab), dtype=pl.Utf8).implode()
    lower = pl.col("lower")
    token = pl.element()
    plain = token.str.contains(_ALPHA) & ~token.is_in(words)
    found = frame.select(lower.str.split(" ").list.eval(plain).list.any()).to_series()
    edged = frame.select(lower.str.contains(_EDGE_CHAR)).to_series()
    if edged.any():
        where = edged.arg_true()
        word = token.str.strip_chars(EDGE_PUNCTUATION)
        stripped = word.str.contains(_ALPHA) & ~word.is_in(words)
        rows = frame.select(lower.gather(where).str.split(" ").list.eval(stripped).list.any())
        found = found.scatter(where, rows.to_series())
    return found.fill_null(False)


def _entities(frame: pl.DataFrame, open_rows: pl.Series) -> pl.Series:
    """Rule 5 on the rows ``open_rows`` (no earlier rule took them, more than three tokens):
    two or more title-cased tokens after the first, "I" left out; False elsewhere."""
    found = pl.repeat(False, frame.height, dtype=pl.Boolean, eager=True)
    if not open_rows.any():
        return found
    where = open_rows.arg_true()
    title = (pl.element().str.contains(_TITLE) & (pl.element() != "I")).cast(pl.Int32)
    tokens = pl.col("spelling").gather(where).str.split(" ").list.slice(1)
    counted = frame.select(tokens.list.eval(title).list.sum() >= MIN_ENTITIES).to_series()
    return found.scatter(where, counted)


def classify_one(spelling: str, vocab: frozenset[str] | None = None) -> str:
    """One query's stratum (the same code path as a whole log)."""
    return str(classify_frame(pl.Series([spelling]), vocab)[0])


def load_rules(spec: str) -> Rule:
    """``module:function`` or ``file.py:function`` -> the function, or an InputError."""
    target, sep, name = spec.rpartition(":")
    if not sep or not target or not name:
        raise InputError(None, f"--rules {spec!r}: expected module:function or file.py:function")
    try:
        if target.endswith(".py"):
            path = Path(target)
            if not path.is_file():
                raise InputError(path, "no such rules file")
            module_spec = importlib.util.spec_from_file_location(
                f"goldset_user_rules_{path.stem}", path
            )
            assert module_spec is not None and module_spec.loader is not None
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
    except InputError:
        raise
    except Exception as exc:  # a user's module can fail in any way; report it on one line
        raise InputError(
            None, f"--rules {spec!r}: could not load {target!r} ({type(exc).__name__}: {exc})"
        ) from None
    rule = getattr(module, name, None)
    if not callable(rule):
        raise InputError(None, f"--rules {spec!r}: {target!r} has no function {name!r}")
    return cast(Rule, rule)  # a user's callable: apply_rule checks every answer it gives


def apply_rule(rule: Rule, spellings: pl.Series, vocab: frozenset[str] | None) -> pl.Series:
    """Run a user's per-query rule over the spellings; any failure or non-text answer is an error."""
    out: list[str] = []
    for text in spellings.to_list():  # a user's Python function: one call per distinct query
        try:
            value = rule(text, vocab)
        except Exception as exc:
            raise InputError(
                None, f"the rules function failed on {text!r}: {type(exc).__name__}: {exc}"
            ) from None
        if not isinstance(value, str) or not value.strip():
            raise InputError(
                None, f"the rules function returned {value!r} for {text!r}; expected a stratum name"
            )
        out.append(value)
    return pl.Series("stratum", out, dtype=pl.Utf8)
