"""A SYNTHETIC query log for `goldset classify` and `goldset sample` demos.

Nobody typed these. They are generated, seeded, from the corpus's own names and docstrings with
one template family per query shape, plus the 42 hand-written sample queries and their variants.
Counts follow a Zipf curve (a heavy head and a long tail, as a real log has), dealt to the queries
in a shuffled order so that no shape owns the head; the 42 sample queries are put at the top, as the
popular ones. The generator knows which template made each query, and `traffic.csv` is computed from
that, so the two files agree by construction.
"""

from __future__ import annotations

import importlib
import random
import re
from collections import Counter

from builder.queries import QUERIES, STRATA

SEED = 20261130
DISTINCT = 2600  # a few thousand distinct strings, like a small docs site's quarter
ZIPF_S = 1.05
TOP_COUNT = 900

NEGATION_TEMPLATES = [
    "{a} without {b}",
    "{a} not working",
    "{a} but not {b}",
    "{a} excluding {b}",
    "{a} cannot {verb}",
    "{a} unsupported",
    "{a} except {b}",
    "{a} without blocking",
]
PARAPHRASE_TEMPLATES = [
    "how do i {p}",
    "how to {p}",
    "is there a way to {p}",
    "what is the best way to {p}",
    "{p}",
]
VERBS = ["open", "import", "find module", "pickle", "close", "decode", "connect", "be copied"]
MULTI_ENTITY_TEMPLATES = [
    "difference between {a} and {b}",
    "convert {a} to {b}",
    "use {a} with {b}",
    "{a} and {b} example",
    "{a} vs {b} which one",
    "pass a {a} to {b}",
]
CONSTANT_TEMPLATES = ["{c}", "{m}.{c}", "{c} error", "what does {c} mean", "{m} {c}"]
CONSTANT_MODULES = ("errno", "os", "signal", "socket", "ssl", "stat")


def _constants() -> list[tuple[str, str]]:
    """Upper-case integer constants of a few modules, as (module, NAME)."""
    found = []
    for module_name in CONSTANT_MODULES:
        module = importlib.import_module(module_name)
        for name in sorted(vars(module)):
            value = getattr(module, name)
            if (
                name.isupper()
                and not name.startswith("_")
                and isinstance(value, int)
                and not isinstance(value, bool)
            ):
                found.append((module_name, name))
    return found


def _typo(word: str, rng: random.Random) -> str:
    """One keyboard slip: swap, drop or double a letter (never the first)."""
    if len(word) < 4:
        return word
    i = rng.randrange(1, len(word) - 1)
    kind = rng.choice(("swap", "drop", "double"))
    if kind == "swap":
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == "drop":
        return word[:i] + word[i + 1 :]
    return word[:i] + word[i] + word[i:]


def _first_clause(text: str) -> str | None:
    """The docstring's first sentence after the signature, lowercased: raw material for a paraphrase."""
    body = text.split("\n\n", 1)[-1]
    sentence = re.split(r"(?<=[.!?])\s", body.strip(), maxsplit=1)[0]
    words = re.findall(r"[a-z][a-z']*", sentence.lower())
    if len(words) < 4 or words[0] not in OPENING_VERBS:
        return None
    words[0] = OPENING_VERBS[words[0]]
    return " ".join(words[:10])


# A docstring says "Return the x"; a person asks "how do i get the x".
OPENING_VERBS = {
    "return": "get",
    "returns": "get",
    "create": "create",
    "get": "get",
    "set": "set",
    "read": "read",
    "write": "write",
    "open": "open",
    "remove": "remove",
    "wait": "wait",
    "make": "make",
    "convert": "convert",
    "run": "run",
    "start": "start",
    "stop": "stop",
    "send": "send",
    "close": "close",
    "add": "add",
    "copy": "copy",
    "change": "change",
    "find": "find",
    "compute": "compute",
    "decode": "decode",
    "encode": "encode",
    "parse": "parse",
}


def _name_words(name: str) -> list[str]:
    return [w for w in re.split(r"_|(?<=[a-z])(?=[A-Z])", name) if w.isalpha() and len(w) > 2]


def _candidates(corpus: list[dict], rng: random.Random) -> dict[str, list[str]]:
    """Distinct candidate queries per stratum, generated from the corpus's names and texts."""
    titles = sorted({row["title"] for row in corpus if "." in row["title"]})
    by_module: dict[str, list[str]] = {}
    for t in titles:
        by_module.setdefault(t.split(".")[0], []).append(t)
    modules = sorted(by_module)
    out: dict[str, set[str]] = {s: set() for s in STRATA}
    for t in titles:
        out["exact_identifier"].add(t)  # pasted as is; the normaliser lowercases
        parts = list(dict.fromkeys(p for p in re.split(r"[._]", t.lower()) if p))
        if 1 <= len(parts) <= 3:
            out["short_keyword"].add(" ".join(parts))
    for _ in range(6000):
        module = rng.choice(modules)
        title = rng.choice(by_module[module])
        words = [w.lower() for w in _name_words(title.rsplit(".", 1)[-1])] or [module]
        other = [
            w.lower() for w in _name_words(rng.choice(by_module[module]).rsplit(".", 1)[-1])
        ] or [module]
        word, extra = rng.choice(words), rng.choice(other)
        if rng.random() < 0.5:
            out["misspelled"].add(f"{module} {_typo(word, rng)}")
        else:
            out["misspelled"].add(f"{_typo(module, rng)} {word}")
        out["negation"].add(
            rng.choice(NEGATION_TEMPLATES).format(
                a=f"{module} {word}", b=extra, verb=rng.choice(VERBS)
            )
        )
        classes = sorted({t.split(".")[1] for t in by_module[module] if t.split(".")[1].istitle()})
        if len(classes) >= 2:
            a, b = rng.sample(classes, 2)
            out["multi_entity"].add(rng.choice(MULTI_ENTITY_TEMPLATES).format(a=a, b=b))
    # Error codes and flags people paste (SO_REUSEADDR, errno ENOENT): constants have no
    # docstring, so they are not in the corpus, but they are in every real docs-search log.
    for module_name, name in _constants():
        out["exact_identifier"].add(rng.choice(CONSTANT_TEMPLATES).format(m=module_name, c=name))
    for row in corpus:
        clause = _first_clause(row["text"])
        if clause:
            out["paraphrase"].add(rng.choice(PARAPHRASE_TEMPLATES).format(p=clause))
    # A slip can land on a real word; such a string is not a misspelling.
    out["misspelled"] -= out["short_keyword"]
    return {s: sorted(v) for s, v in out.items()}


# How many of the DISTINCT generated strings each shape gets. Traffic shares then follow from the
# counts the Zipf curve deals out, so traffic.csv is computed, not copied from here.
SHAPE_MIX = {
    "short_keyword": 0.31,
    "paraphrase": 0.22,
    "exact_identifier": 0.18,
    "misspelled": 0.12,
    "multi_entity": 0.11,
    "negation": 0.06,
}


def build_log(corpus: list[dict]) -> list[tuple[str, int, str]]:
    """(query, count, stratum) rows: the 42 sample queries and their variants, then generated ones."""
    rng = random.Random(SEED)
    pools = _candidates(corpus, rng)
    chosen: dict[str, str] = {}
    for _, text, stratum in QUERIES:
        chosen[text] = stratum
        chosen[text.upper() if stratum == "exact_identifier" else f"  {text}  "] = (
            stratum  # variants a normaliser folds
        )
    per_stratum = {s: round(DISTINCT * share) for s, share in SHAPE_MIX.items()}
    for stratum, n in per_stratum.items():
        fresh = [q for q in pools[stratum] if q not in chosen]
        for q in rng.sample(fresh, min(n, len(fresh))):
            chosen[q] = stratum
    queries = list(chosen)
    rng.shuffle(queries)
    # Zipf counts, highest first; the 42 sample queries take the top ones, the rest in shuffled order.
    counts = [max(1, round(TOP_COUNT / (rank**ZIPF_S))) for rank in range(1, len(queries) + 1)]
    sample_texts = {t for _, t, _ in QUERIES}
    position = {q: i for i, q in enumerate(queries)}
    order = sorted(queries, key=lambda q: (q not in sample_texts, position[q]))
    return [(q, c, chosen[q]) for q, c in zip(order, counts, strict=True)]


def traffic_shares(log: list[tuple[str, int, str]]) -> dict[str, str]:
    """Each stratum's share of occurrences, two decimals, summing to exactly 1 (largest remainder)."""
    totals = Counter()
    for _, count, stratum in log:
        totals[stratum] += count
    whole = sum(totals.values())
    exact = {s: 100 * totals[s] / whole for s in STRATA}
    floors = {s: int(v) for s, v in exact.items()}
    for s in sorted(STRATA, key=lambda s: exact[s] - floors[s], reverse=True)[
        : 100 - sum(floors.values())
    ]:
        floors[s] += 1
    return {s: f"{floors[s] / 100:.2f}" for s in STRATA}
