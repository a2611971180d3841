"""What a registry entry holds, the registry itself, and the parsed :class:`Measure`.

One :class:`Entry` per measure family says everything goldset knows about it: its name as
ir_measures writes it, how it takes a cutoff and which parameters, the other tools' names for
it (trec_eval's, ir_measures' aliases, ranx's), its kind (binary or graded) and bounds, how the
``all`` line aggregates it, and both implementations side by side: the Polars expression (the
reference engine, ``eval.metrics``) and the plain-Python kernel (``eval.small``, for small inputs
without importing Polars). Parsing, aliases, trec_eval's output names, kind and bounds lookups and
the lists shown in ``--help`` all read the registry; nothing else lists measures.

This module imports neither Polars nor the rest of goldset: the small path and ``--help`` read
the registry without paying for Polars.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import polars as pl

    from goldset_tui.measures.query import Query

# How a name takes its `@`: a rank cutoff it must have, may have or must not have, or a recall
# level in [0, 1] (IPrec@0.1).
CutoffRule = Literal["required", "optional", "none", "recall"]
# Binary means 0 or 1 on every query by definition (never guessed from values): always
# (Success), when the cutoff is 1 (one rank looked at), or when every query has at most one
# relevant document (recall-like, at R = 1: then see measure_kind.is_binary_measure).
Kind = Literal["binary", "binary_at_cutoff_1", "binary_at_one_relevant", "graded"]
# The `all` line: a mean over queries, a sum (counts, as trec_eval prints them) or a geometric
# mean (trec_eval's gm_map).
Aggregation = Literal["mean", "sum", "gmean"]
UNIT = (0.0, 1.0)

# (aggregations over one query's judged rows in rank order, the final value from them and the
# query's statistics): see eval.metrics for the columns they may use.
PolarsExprs = Callable[["Measure", str], "tuple[list[pl.Expr], pl.Expr]"]
# (qrels, the whole ranked run, measure, key) -> `query_id, key`: for a measure that needs more
# than the judged rows (Compat's ideal ranking, alpha-nDCG's subtopics).
PolarsFrame = Callable[["pl.DataFrame", "pl.DataFrame", "Measure", str], "pl.DataFrame"]
Kernel = Callable[["Measure", "Query"], float]


@dataclass(frozen=True)
class TrecName:
    """trec_eval's name for a measure: ``form`` says how its parameter is written: ``cut`` an
    integer after `_` or `.` (``P_10``), ``none`` no parameter, ``recall`` a recall level
    (``iprec_at_recall_0.10``), ``beta`` set_F's optional weight. ``defaults``: what the base
    alone stands for in trec_eval's -m (``P``: 5, 10, ... 1000); empty when it is one measure."""

    base: str
    form: Literal["cut", "none", "recall", "beta"] = "none"
    defaults: tuple[str, ...] = ()


@dataclass(frozen=True)
class RanxName:
    """ranx's name (lowercase, ``name@k``) for ``target`` (canonical text without cutoff);
    ``cutoff``: whether ranx's name needs an @k to mean this measure (ranx's ``precision``
    without @k is the whole list, not P), must not have one, or may."""

    name: str
    target: str
    cutoff: Literal["required", "optional", "none"] = "optional"


@dataclass(frozen=True)
class Entry:
    """One measure family. ``usage`` is how ``--help`` lists it (``P@k``), ``examples`` the
    names an error message offers when a typo is too far from any name."""

    name: str
    cutoff: CutoffRule
    params: frozenset[str]
    usage: tuple[str, ...]
    examples: tuple[str, ...]
    kind: Kind = "graded"
    bounds: tuple[float, float | None] = UNIT
    aggregation: Aggregation = "mean"
    polars: PolarsExprs | None = None
    frame: PolarsFrame | None = None
    kernel: Kernel | None = None
    trec_eval: tuple[TrecName, ...] = ()
    ir_measures: tuple[str, ...] = ()
    ranx: tuple[RanxName, ...] = ()
    default_p: float | None = None  # the default persistence, when it takes `p`
    needs_num_ret: bool = False  # its final value needs how many documents were retrieved
    needs_ideal_dcg: bool = False  # the query statistics carry the ideal DCG (nDCG)
    needs_subtopics: bool = False  # scored on diversity qrels (query subtopic doc grade)
    all_line_only: bool = False  # trec_eval prints it on the `all` line alone (num_q, gm_map)

    @property
    def bounded(self) -> bool:
        return self.bounds == UNIT


_REGISTRY: dict[str, Entry] = {}


def register(entry: Entry) -> Entry:
    """Add ``entry``. A ValueError for a name already registered, another tool's name already
    standing for another measure (an alias must mean one thing), or an entry without a Polars
    implementation (the reference engine every measure needs; the kernel is optional)."""
    if entry.name in _REGISTRY:
        raise ValueError(f"measure {entry.name!r} is already registered")
    if entry.polars is None and entry.frame is None:
        raise ValueError(f"measure {entry.name!r} needs a Polars expression or frame")
    taken = _names_taken()
    for tool, name in _names(entry):
        if (tool, name) in taken or (tool == "ir_measures" and ("name", name) in taken):
            raise ValueError(f"measure {entry.name!r}: {tool} name {name!r} is already taken")
    if ("ir_measures", entry.name) in taken:
        raise ValueError(f"measure {entry.name!r}: already an ir_measures alias")
    _REGISTRY[entry.name] = entry
    return entry


def _names(entry: Entry) -> list[tuple[str, str]]:
    """(tool, name) for every name ``entry`` answers to: one name is one measure, per tool."""
    return [
        ("name", entry.name),
        *(("trec_eval", t.base) for t in entry.trec_eval),
        *(("ir_measures", alias) for alias in entry.ir_measures),
        *(("ranx", r.name) for r in entry.ranx),
    ]


def _names_taken() -> set[tuple[str, str]]:
    return {pair for e in _REGISTRY.values() for pair in _names(e)}


def unregister(name: str) -> None:
    """Remove the entry ``name`` (a test's own measure, once the test is done)."""
    del _REGISTRY[name]


def lookup(name: str) -> Entry:
    """The entry of a canonical name (KeyError when there is none: parse first)."""
    return _REGISTRY[name]


def known(name: str) -> bool:
    return name in _REGISTRY


def entries() -> Iterator[Entry]:
    """Every entry, in the order registered (the order of lists and --help)."""
    return iter(list(_REGISTRY.values()))


@dataclass(frozen=True)
class Measure:
    """One parsed measure. ``text`` is the name as given, kept so results are keyed by it."""

    name: str
    cutoff: int | None = None
    rel: int = 1
    dcg: str = "log2"
    text: str = ""
    level: float | None = None  # IPrec's recall level, in [0, 1]
    beta: float = 1.0  # SetF's weight of recall against precision
    p: float | None = None  # RBP's and Compat's persistence, when given
    normalize: bool = True  # Compat divided by the ideal ranking's own
    alpha: float = 0.5  # alpha-nDCG's redundancy penalty
    rel_given: bool = False  # `rel=` written in the name (then -l does not change it)
    alias: str = ""  # the other tool's name this was read from, when it was one

    @property
    def entry(self) -> Entry:
        return _REGISTRY[self.name]

    @property
    def is_count(self) -> bool:
        return self.entry.aggregation == "sum"

    @property
    def needs_subtopics(self) -> bool:
        """Scored on diversity qrels (``query subtopic doc grade``), not one grade a document."""
        return self.entry.needs_subtopics

    @property
    def persistence(self) -> float:
        if self.p is not None:
            return self.p
        default = self.entry.default_p
        return default if default is not None else 0.8

    @property
    def aggregation(self) -> str:
        """How the `all` line is made from per-query values: ``sum`` (counts), ``gmean``
        (GMAP, as trec_eval's gm_map) or ``mean``."""
        return self.entry.aggregation

    @property
    def trec_eval_name(self) -> str | None:
        """trec_eval's name for this measure at its relevance level, or None."""
        return trec_eval_name(self.name, self.cutoff, self.level, self.beta, self.dcg)

    def __str__(self) -> str:
        return self.text or canonical(self)


def canonical(m: Measure) -> str:
    params = []
    if m.rel != 1:
        params.append(f"rel={m.rel}")
    if m.dcg != "log2":
        params.append(f"dcg='{m.dcg}'")
    if m.beta != 1.0:
        params.append(f"beta={m.beta:g}")
    if m.p is not None:
        params.append(f"p={m.p:g}")
    if not m.normalize:
        params.append("normalize=false")
    if m.alpha != 0.5:
        params.append(f"alpha={m.alpha:g}")
    text = m.name + (f"({','.join(params)})" if params else "")
    if m.level is not None:
        return text + f"@{m.level:g}"
    return text + (f"@{m.cutoff}" if m.cutoff is not None else "")


def trec_eval_name(
    name: str, cutoff: int | None, level: float | None, beta: float, dcg: str
) -> str | None:
    """How trec_eval prints a canonical measure (None: trec_eval has no such measure)."""
    if dcg != "log2" or name not in _REGISTRY:
        return None
    for trec in _REGISTRY[name].trec_eval:
        if trec.form == "recall":
            if level is not None:
                return f"{trec.base}_{level:.2f}"
        elif trec.form == "cut" and cutoff is not None:
            return f"{trec.base}_{cutoff}"
        elif trec.form == "beta" and cutoff is None:
            return trec.base if beta == 1.0 else None
        elif trec.form == "none" and cutoff is None:
            return trec.base
    return None
