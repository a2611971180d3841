"""The history table, the paired changes between consecutive releases, and recurring failures.

Releases are ordered by when they were first recorded. For each system:

- each release's mean over its queries with the report's interval (Wilson with continuity
  correction for 0/1 measures, the score-t interval for graded ones:
  ``eval.intervals.mean_interval``), and the same per stratum.
  One method for the whole history of a measure, chosen by what the measure is
  (:func:`measure_kind`), so that two releases are always read with the same interval;
- between consecutive releases, the **paired** difference on the queries both were evaluated on
  (comparisons on the same queries are paired, and most of the variance, query difficulty,
  cancels: docs/background.md#paired-comparison), with the interval and the randomization p-value of
  ``eval.stats.paired_comparison`` (for a measure in [0, 1], the score interval of the
  differences: never a point, even when every query moved the same way); ``significant`` when the
  interval excludes 0; ``improved`` and ``worse``, the queries that moved each way, so that the
  words can say what a covering interval reaching across 0 does not: that on seven queries none
  improved and three got worse;
- where the golden set's version differs between the two, what changed
  (``version.describe_change``), so that a drop is never read as a regression when the set moved.

A query is a recurring failure of a system when it scored 0 in at least K of that system's last
N releases (those are the ones worth promoting into named regression cases).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from goldset_tui.errors import InputError
from goldset_tui.eval.defaults import REPORT_SAMPLES
from goldset_tui.eval.intervals import mean_interval
from goldset_tui.eval.stats import paired_comparison
from goldset_tui.history.records import Record
from goldset_tui.history.version import describe_change

DEFAULT_RECURRING = (3, 5)


def parse_recurring(text: str) -> tuple[int, int]:
    """``K/N`` with 1 <= K <= N; ValueError with the reason otherwise."""
    k_text, sep, n_text = text.partition("/")
    try:
        k, n = int(k_text), int(n_text)
    except ValueError:
        raise ValueError(f"{text!r}: expected K/N, e.g. 3/5") from None
    if not sep or k < 1 or n < k:
        raise ValueError(f"{text!r}: expected K/N with 1 <= K <= N, e.g. 3/5")
    return k, n


def _no_nan(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _no_nan(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_no_nan(v) for v in value]
    return value


def release_order(records: Sequence[Record]) -> list[str]:
    """Release names by the time each was first recorded."""
    first: dict[str, str] = {}
    for r in records:
        if r.release not in first or r.time < first[r.release]:
            first[r.release] = r.time
    return sorted(first, key=lambda name: (first[name], name))


def measure_kind(records: Sequence[Record], metric: str) -> tuple[bool, bool]:
    """(binary, bounded) for the history of ``metric``: from its definition when the name settles
    it (Success@k binary, nDCG@10 graded, whatever the records say: records written before the
    definition decided held a guess from their values); for a recall-like measure (R@k) binary
    only when every record of it was (each query one relevant document in every release), so
    that one method serves every release. A name that no longer parses: graded, unbounded."""
    from goldset_tui.eval.measure_kind import binary_by_name, is_bounded_measure

    try:
        known, bounded = binary_by_name(metric), is_bounded_measure(metric)
    except InputError:
        return False, False
    if known is not None:
        return known, bounded
    flags = [r.binary for r in records if r.measure == metric]
    return bool(flags) and all(flags), bounded


def _mean_ci(values: list[float], binary: bool, bounded: bool) -> tuple[float, list[float]]:
    mean = sum(values) / len(values)
    lo, hi = mean_interval(values, binary=binary, bounded=bounded)
    return mean, [lo, hi]


def release_row(rec: Record, binary: bool, bounded: bool = True) -> dict[str, Any]:
    """One release of one system: headline and per-stratum means with intervals, by the
    history's one method (:func:`measure_kind`)."""
    values = list(rec.scores.values())
    mean, ci = _mean_ci(values, binary, bounded) if values else (float("nan"), [])
    by_stratum: dict[str, list[float]] = {}
    for qid, value in rec.scores.items():
        by_stratum.setdefault(rec.stratum_of(qid), []).append(value)
    strata = {}
    for stratum, vals in sorted(by_stratum.items()):
        s_mean, s_ci = _mean_ci(vals, binary, bounded)
        strata[stratum] = {"n": len(vals), "mean": s_mean, "ci95": s_ci}
    return {
        "release": rec.release,
        "system": rec.system,
        "time": rec.time,
        "version": rec.version.get("id", ""),
        "n": len(values),
        "mean": mean,
        "ci95": ci,
        "strata": strata,
        # The shares in force and the strata definition's digest at this release (null for a
        # record made before they were kept, or without --traffic): docs/drift.md.
        "traffic": rec.traffic,
        "strata_assignment_sha256": (rec.strata_definition or {}).get("assignment_sha256"),
    }


@dataclass(frozen=True)
class History:
    metric: str
    releases: list[dict[str, Any]]
    changes: list[dict[str, Any]]
    recurring: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        """The issue's JSON shape; a missing number (no interval) is null, never NaN."""
        doc = {
            "metric": self.metric,
            "releases": self.releases,
            "changes": self.changes,
            "recurring": self.recurring,
        }
        return dict(_no_nan(doc))


def by_system(records: Sequence[Record], metric: str) -> dict[str, list[Record]]:
    """Per system (in order of first appearance), its records of ``metric`` in release order."""
    order = {name: i for i, name in enumerate(release_order(records))}
    out: dict[str, list[Record]] = {}
    for r in records:
        if r.measure == metric:
            out.setdefault(r.system, []).append(r)
    return {s: sorted(rs, key=lambda r: order[r.release]) for s, rs in out.items()}


def paired_change(
    old: Record,
    new: Record,
    *,
    seed: int = 0,
    samples: int = REPORT_SAMPLES,
    bounded: bool = True,
    binary: bool = False,
) -> dict[str, Any]:
    """``new - old`` on the queries both were evaluated on, paired per query; ``bounded`` and
    ``binary``: the history's measure lies in [0, 1], is 0 or 1, by definition
    (:func:`measure_kind`), which decides the interval (``eval.stats.paired_comparison``)."""
    common = sorted(set(old.scores) & set(new.scores))
    row: dict[str, Any] = {
        "system": new.system,
        "from": old.release,
        "to": new.release,
        "n": len(common),
        "mean_diff": None,
        "ci95": None,
        "ci_method": None,
        "p_value": None,
        "significant": False,
        "improved": 0,
        "worse": 0,
        "set_changed": describe_change(old.version, new.version),
    }
    if common:
        result = paired_comparison(
            [new.scores[q] for q in common],
            [old.scores[q] for q in common],
            seed=seed,
            samples=samples,
            bounded=bounded,
            binary=binary,
        )
        lo, hi = result.ci95
        moves = [new.scores[q] - old.scores[q] for q in common]
        row |= {
            "improved": sum(1 for d in moves if d > 0),
            "worse": sum(1 for d in moves if d < 0),
            "mean_diff": result.mean_diff,
            "ci95": [lo, hi],
            "ci_method": result.ci_method,
            "p_value": result.p_value,
            "significant": bool(lo > 0 or hi < 0),
        }
    return row


def recurring_failures(history: Sequence[Record], k: int, n: int) -> list[dict[str, Any]]:
    """Queries that scored 0 in at least ``k`` of the last ``n`` releases of ``history`` (one
    system's records, in release order); each with the stratum of its latest record."""
    window = list(history)[-n:]
    failed: dict[str, list[str]] = {}
    stratum: dict[str, str] = {}
    for rec in window:
        for qid, value in rec.scores.items():
            if value == 0:
                failed.setdefault(qid, []).append(rec.release)
                stratum[qid] = rec.stratum_of(qid)
    return [
        {
            "query_id": qid,
            "stratum": stratum[qid],
            "system": window[-1].system,
            "failed_in": releases,
        }
        for qid, releases in sorted(failed.items())
        if len(releases) >= k
    ]


def metrics_of(records: Sequence[Record]) -> list[str]:
    return sorted({r.measure for r in records})


def build_history(
    records: Sequence[Record],
    *,
    metric: str | None = None,
    system: str | None = None,
    recurring: tuple[int, int] = DEFAULT_RECURRING,
    seed: int = 0,
    samples: int = REPORT_SAMPLES,
) -> History:
    """The history of ``metric`` (default: the only one, else the most recorded one)."""
    if metric is None:
        counts: dict[str, int] = {}
        for r in records:
            counts[r.measure] = counts.get(r.measure, 0) + 1
        metric = max(sorted(counts), key=lambda m: counts[m]) if counts else ""
    systems = by_system(records, metric)
    if system is not None:
        systems = {s: rs for s, rs in systems.items() if s == system}
    releases, changes, recur = [], [], []
    k, n = recurring
    binary, bounded = measure_kind(records, metric)
    for recs in systems.values():
        releases += [release_row(r, binary, bounded) for r in recs]
        changes += [
            paired_change(a, b, seed=seed, samples=samples, bounded=bounded, binary=binary)
            for a, b in zip(recs, recs[1:], strict=False)
        ]
        recur += recurring_failures(recs, k, n)
    return History(metric, releases, changes, recur)
