"""The measure registry: one entry per measure family, read by everything that names measures.

An entry (``entry.Entry``) holds the family's ir_measures name, its cutoff rule and parameters,
the other tools' names for it (trec_eval, ir_measures' aliases, ranx), its kind and bounds, how
the ``all`` line aggregates it, its Polars expression and its plain-Python kernel. The built-in
entries live in ``trec.py`` (trec_eval's measures), ``more.py`` (the parity additions) and
``frames.py`` (measures that need whole frames). Parsing (``eval.measures``), aliases
(``eval.aliases``), trec_eval's -m forms and output names, kind and bounds
(``eval.measure_kind``), both engines and ``goldset eval --help`` read from here.

Adding a measure is one entry (docs/DEVELOPING.md, "Adding a measure"); :func:`register` adds
one at run time (a test's own measure), :func:`unregister` removes it.
"""

from __future__ import annotations

from goldset_tui.measures import frames, more, trec
from goldset_tui.measures.entry import (
    Entry,
    Measure,
    RanxName,
    TrecName,
    entries,
    known,
    lookup,
    register,
    unregister,
)

__all__ = [
    "Entry",
    "Measure",
    "RanxName",
    "TrecName",
    "entries",
    "examples",
    "known",
    "lookup",
    "register",
    "unregister",
    "usage",
]

for _entry in (*trec.ENTRIES, *more.ENTRIES, *frames.ENTRIES):
    register(_entry)


def usage() -> list[str]:
    """How ``--help`` lists the measures (``P@k``, ``RR``, ``RR@k`` ...), in registry order."""
    return [text for e in entries() for text in e.usage]


def examples() -> list[str]:
    """Names an error message offers when a typo is close to none of them."""
    return [text for e in entries() for text in e.examples]
