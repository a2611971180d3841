"""The ``all`` line from per-query values, in plain Python: one definition for both paths.

``metrics.aggregate`` (Polars frames) and the small-input path of ``goldset eval`` both call
:func:`mean_rows`, so the way a mean is made cannot differ between them: counts (NumRet, NumRel,
NumRelRet, NumQ) are summed, as trec_eval prints them; GMAP is the geometric mean of AP floored
at 1e-5 (trec_eval's gm_map, a query absent counting as that floor); the rest are means over
the given queries, a query absent counting 0.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable

from goldset_tui.eval.measures import parse_measure

MIN_GEO_MEAN = 0.00001  # trec_eval's trec_eval.h: the floor of a value in a geometric mean

Row = tuple[str, str, float]  # query_id, measure, value


def mean_rows(rows: Iterable[Row], queries: Collection[str] | None = None) -> dict[str, float]:
    """Means keyed by measure, in the order measures first appear in ``rows``, over ``queries``
    (default: every query in ``rows``)."""
    totals: dict[str, float] = {}
    seen: dict[str, int] = {}
    kinds: dict[str, str] = {}
    ids: set[str] = set()
    for qid, measure, value in rows:
        if measure not in kinds:
            kinds[measure] = parse_measure(measure).aggregation
            totals[measure], seen[measure] = 0.0, 0
        if queries is not None and qid not in queries:
            continue
        ids.add(qid)
        if kinds[measure] == "gmean":
            value = math.log(max(value, MIN_GEO_MEAN))
        totals[measure] += value
        seen[measure] += 1
    n = len(queries) if queries is not None else len(ids)
    out = {}
    for name, kind in kinds.items():
        total = totals[name]
        if kind == "sum":
            out[name] = float(total)
        elif kind == "gmean":
            total += (n - seen[name]) * math.log(MIN_GEO_MEAN)
            out[name] = math.exp(total / n) if n else 0.0
        else:
            out[name] = float(total) / n if n else 0.0
    return out
