"""Stratified sampling of a labelled log, weighted by capped frequency, without replacement.

The usual snippet for this (transcribed as ``seed_stratified_sample`` in
tests/unit/sampling/test_sampling_sample.py) gets it wrong in two ways, both because its branches
are swapped:

    sample += rng.sample(pool, k=target) if len(pool) <= target else \\
              rng.choices(pool, weights=weights, k=target)

When the pool is *smaller* than the target it calls ``rng.sample`` with k > len(pool), which
raises; when the pool is larger it calls ``rng.choices``, which draws *with* replacement, so a head
query can appear twice and the weights are ignored by nothing but luck. We draw weighted samples
*without* replacement by Efraimidis and Spirakis's method (Information Processing Letters 97(5),
2006): each query gets the key ``log(u) / w`` with ``u`` uniform in (0, 1] and ``w = min(count,
cap)``; the ``k`` largest keys are the sample. A stratum with fewer queries than its target gives
all of them, and the shortfall is reported.

Each sampled query carries its ``inclusion_probability`` (``inclusion``: its chance of being
drawn, 1 in a stratum taken in full) and a ``query_id`` that depends on the query alone, so a
traffic-weighted or Horvitz-Thompson report can be computed from the sample and its ids match
judgments made for an earlier sample. ``report_frames`` gives the strata and traffic tables
``goldset report --strata/--traffic`` reads.

Determinism, here and in a warehouse: each query's ``u`` is derived from the SHA-256 of
``"{seed}:{query}"`` (the normalised query, UTF-8): its first 52 bits ``x`` give
``u = (x + 1) / 2**52``, exact in a double. Every SQL engine computes SHA-256 the same way, so the
SQL ``goldset sample emit-sql`` writes draws the same queries as this module (``sql.py``). The
keys depend on the query alone, not on row order or on the other strata, so the same labels and
seed give the same bytes whatever the input row order, and changing one stratum's target leaves
the others alone. A hash is as good as a random generator here: ``u`` is uniform on 2**52
levels and independent between queries, which is all the inclusion probabilities assume (a test
checks the draw's frequencies against the exact ones).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import polars as pl

from goldset_tui.errors import InputError

# The sample's columns are the contract with the strata and traffic files `goldset report`
# reads: their names are defined once, beside that reader.
from goldset_tui.io.strata_and_traffic import (
    DEFF_HEAD,
    DEFF_QUERY,
    DEFF_SEARCH,
    DEFF_TAIL,
    DESIGN_COLUMNS,
    HEAD_COUNT,
    HEAD_SHARE,
    INCLUSION,
)
from goldset_tui.report.closure import ClosureCheck

# Sizing the strata lives in allocation.py; its names stay importable from here, where a
# notebook has always found them (docs/sampling.md).
from goldset_tui.sampling.allocation import DEFAULT_MIN_PER_STRATUM as DEFAULT_MIN_PER_STRATUM
from goldset_tui.sampling.allocation import allocate_total as allocate_total
from goldset_tui.sampling.allocation import parse_targets as parse_targets
from goldset_tui.sampling.allocation import stratum_counts as stratum_counts
from goldset_tui.sampling.inclusion import group_probabilities, inclusion_probabilities
from goldset_tui.sampling.origin import ORIGIN
from goldset_tui.text import visible

DEFAULT_CAP = 50  # weights = min(count, 50): docs/background.md#stratified-sampling
QUERY_ID = "query_id"


@dataclass(frozen=True)
class StratumRow:
    stratum: str
    distinct: int
    occurrences: int
    share: float
    target: int
    sampled: int
    # The design effects `goldset report` floors its headline variances with (``design_effects``);
    # None when the draw did not see the whole stratum's counts (a warehouse draw).
    design: dict[str, float] | None = None

    @property
    def shortfall(self) -> int:
        return self.target - self.sampled


@dataclass
class SampleResult:
    sample: pl.DataFrame
    rows: list[StratumRow]
    requested: int
    notes: list[str] = field(default_factory=list)
    closure: list[ClosureCheck] = field(default_factory=list)


def check_known_strata(
    targets: dict[str, int],
    labels: pl.DataFrame,
    labels_path: str | Path | None = None,
    *,
    scheme: tuple[str, ...] = (),
) -> None:
    """Refuse a --targets stratum that LABELS does not have: it is almost always a typo, and taking
    it as a stratum with no queries would give an empty or short sample and exit 0.

    ``scheme``: when every stratum of LABELS belongs to a known labelling scheme (``goldset
    classify``'s six), the scheme's other strata are real names too, just without queries here.
    """
    present = set(labels.get_column("stratum").unique().drop_nulls().to_list())
    known = sorted(present | set(scheme) if present <= set(scheme) else present)
    unknown = [name for name in targets if name not in set(known)]
    if unknown:
        # Names come from files and the command line: shown with control characters made visible.
        listed = [visible(k, keep_newlines=False) for k in known[:20]]
        shown = ", ".join(listed) + (f" and {len(known) - 20} more" if len(known) > 20 else "")
        names = ", ".join(repr(visible(n, keep_newlines=False)) for n in unknown)
        raise InputError(
            labels_path,
            f"--targets: no stratum {names} in LABELS; its strata are: {shown or '(none)'}",
        )


KEY_HEX = 13  # 52 bits of the hash: a double holds (x + 1) / 2**52 exactly
KEY_SCALE = float(2**52)


def hash_uniforms(queries: list[str], seed: int) -> list[float]:
    """Each query's ``u`` in (0, 1]: the first 52 bits of SHA-256("{seed}:{query}"), plus one,
    over 2**52. The SQL engines compute the same number (``sql.py``)."""
    return [
        (int(hashlib.sha256(f"{seed}:{q}".encode()).hexdigest()[:KEY_HEX], 16) + 1) / KEY_SCALE
        for q in queries
    ]


def efraimidis_spirakis_keys(weights: list[int], uniforms: list[float]) -> list[float]:
    """Keys whose k largest give a weighted sample of size k without replacement."""
    # u lies in (0, 1], so log() is finite; larger weight, key nearer 0.
    return [math.log(u) / w for u, w in zip(uniforms, weights, strict=True)]


def draw_stratum(pool: pl.DataFrame, k: int, seed: int, stratum: str, cap: int) -> pl.DataFrame:
    """k queries of one stratum, weighted by min(count, cap), never the same query twice; each
    with its ``inclusion_probability`` (1 when the stratum is taken in full)."""
    if k >= pool.height:
        return pool.with_columns(pl.lit(1.0, dtype=pl.Float64).alias(INCLUSION))
    weights = pool.get_column("count").clip(upper_bound=cap)
    uniforms = (hash_uniforms(q.to_list(), seed) for q in _slices(pool.get_column("query")))
    keys = pl.concat(
        pl.Series("_key", efraimidis_spirakis_keys(w.to_list(), u), dtype=pl.Float64)
        for w, u in zip(_slices(weights), uniforms, strict=True)
    )
    # The k largest keys, ties to the smallest query (a query's key is its own, whatever the
    # order): each is at least the k-th largest key, and few others are, so only those are
    # sorted, not the whole stratum.
    least = keys.top_k(k).min() if k > 0 else math.inf
    drawn = pool.with_columns(keys).filter(pl.col("_key") >= least)
    drawn = drawn.sort(["_key", "query"], descending=[True, False]).head(k).drop("_key")
    by_weight = weight_probabilities(weights, k)
    table = pl.Series(INCLUSION, [by_weight.get(w, 0.0) for w in range(cap + 1)])
    return drawn.with_columns(table.gather(drawn.get_column("count").clip(upper_bound=cap)))


def design_effects(pool: pl.DataFrame, k: int, cap: int) -> dict[str, float]:
    """What drawing ``k`` of ``pool`` (query, count) does to the variance of the report's two
    Hajek headlines, from every query of the stratum, drawn or not (Kish's design effect of the
    weights, with 1 - pi: a query drawn for certain adds no sampling error):

        per search:  k x sum((1 - pi) c^2 / pi) / (sum c)^2
        per query:   k x sum((1 - pi) / pi) / N^2

    and the same per-search sum over the stratum's head (the queries searched ``cap`` times or
    more, all drawn with one probability) and over its tail, with the head's share of the
    stratum's traffic: the report weights head and tail by their known shares. The report cannot
    compute these from the sample when its heavy queries were not drawn, which is exactly when
    the sample's own variance runs small (docs/report.md)."""
    count = pool.get_column("count")
    # Whole numbers: their sums are exact, in any order, as floats or as integers.
    total = float(count.sum())
    top = float(count.filter(count >= cap).sum())
    out = {DEFF_SEARCH: 0.0, DEFF_QUERY: 0.0, DEFF_HEAD: 0.0, DEFF_TAIL: 0.0}
    out |= {HEAD_COUNT: float(cap), HEAD_SHARE: top / total if total else 0.0}
    if k >= pool.height or k <= 0:
        return out  # taken in full: no sampling error
    by_weight = weight_probabilities(count.clip(upper_bound=cap), k)
    sums = dict.fromkeys((DEFF_SEARCH, DEFF_QUERY, DEFF_HEAD, DEFF_TAIL), 0.0)
    # Summed query by query, in the pool's order (the same bits every time), a slice at a time:
    # a stratum of millions of queries is never a list of them.
    for piece in _slices(count):
        for whole in piece.to_list():
            c = float(whole)
            pi = by_weight[min(whole, cap)]
            sums[DEFF_SEARCH] += (1.0 - pi) * c * c / pi
            sums[DEFF_QUERY] += (1.0 - pi) / pi
            sums[DEFF_HEAD if c >= cap else DEFF_TAIL] += (1.0 - pi) * c * c / pi
    out[DEFF_SEARCH] = k * sums[DEFF_SEARCH] / (total * total)
    out[DEFF_QUERY] = k * sums[DEFF_QUERY] / (pool.height * pool.height)
    out[DEFF_HEAD] = k * sums[DEFF_HEAD] / (top * top) if top else 0.0
    out[DEFF_TAIL] = k * sums[DEFF_TAIL] / ((total - top) ** 2) if total > top else 0.0
    return out


SLICE = 1 << 16  # queries turned into Python values at a time (hashes, sums)


def _slices(column: pl.Series) -> list[pl.Series]:
    return [column.slice(start, SLICE) for start in range(0, column.len(), SLICE)]


def weight_probabilities(weights: pl.Series, k: int) -> dict[int, float]:
    """``probability_of_weight`` from a column of weights: the same groups in the same
    (ascending) order, so the same bits, without a list of every query's weight."""
    groups = weights.value_counts(name="n").sort(weights.name)
    ordered = Counter(dict(zip(groups[weights.name].to_list(), groups["n"].to_list(), strict=True)))
    return cast("dict[int, float]", group_probabilities(ordered, k))


def probability_of_weight(weights: list[int], k: int) -> dict[int, float]:
    """Each weight's inclusion probability when ``k`` of these are drawn. Queries of the same
    weight share one; computed over the weights in ascending order, so a warehouse's table of
    (weight, queries) gives the same bits as the local list of queries."""
    ordered = sorted(weights)
    return dict(zip(ordered, inclusion_probabilities(ordered, k), strict=True))


def add_probabilities(
    rows: pl.DataFrame, weights: pl.DataFrame, targets: dict[str, int], cap: int
) -> pl.DataFrame:
    """A warehouse's sample (``query_id, query, count, stratum, spelling``, from
    ``sql.sample_sql``) with each query's ``inclusion_probability`` added, from the table of
    ``stratum, weight, queries`` that ``sql.weights_sql`` returns: the local SAMPLE's bytes."""
    by_stratum: dict[str, dict[int, float]] = {}
    for (stratum,), group in weights.group_by("stratum", maintain_order=True):
        listed = [
            int(w)
            for w, n in zip(group["weight"].to_list(), group["queries"].to_list(), strict=True)
            for _ in range(int(n))
        ]
        k = targets.get(str(stratum), 0)
        by_stratum[str(stratum)] = (
            dict.fromkeys(listed, 1.0) if k >= len(listed) else probability_of_weight(listed, k)
        )
    probs = [
        by_stratum[s][min(int(c), cap)]
        for s, c in zip(rows["stratum"].to_list(), rows["count"].to_list(), strict=True)
    ]
    return rows.with_columns(pl.Series(INCLUSION, probs, dtype=pl.Float64))


def query_ids(queries: pl.Series) -> pl.Series:
    """A stable id per normalised query: ``q_`` and 12 hex digits of its SHA-256.

    Stable across seeds, targets and labels files, so a query drawn into two samples keeps its
    judgments; 48 bits make a collision among a log's distinct queries vanishingly unlikely, and
    ``stratified_sample`` refuses one rather than merge two queries.
    """
    ids = ["q_" + hashlib.sha256(q.encode("utf-8")).hexdigest()[:12] for q in queries.to_list()]
    return pl.Series(QUERY_ID, ids, dtype=pl.Utf8)


def refuse_a_sample(labels: pl.DataFrame, path: str | Path | None = None) -> None:
    """LABELS that already carry inclusion probabilities are a sample: drawing from it again
    would record the second draw's probability alone, and a weighted report would be wrong."""
    if INCLUSION in labels.columns:
        raise InputError(
            path,
            f"LABELS already has an {INCLUSION} column, so it is a sample: sampling it again "
            "would record the second draw's probability alone. Sample the labels it came from.",
            column=INCLUSION,
        )


def stratified_sample(
    labels: pl.DataFrame,
    targets: dict[str, int],
    seed: int,
    cap: int = DEFAULT_CAP,
    counts: pl.DataFrame | None = None,
) -> SampleResult:
    """The sample: LABELS's rows drawn per stratum, with a ``query_id`` first (LABELS's own when
    it has one) and each row's ``inclusion_probability`` last. ``counts`` is
    ``stratum_counts(labels)`` when the caller already has it (one count per run)."""
    if cap < 1:
        raise InputError(None, f"--cap must be at least 1, got {cap}")
    refuse_a_sample(labels)
    counts = stratum_counts(labels) if counts is None else counts
    present = counts.get_column("stratum").to_list()
    notes: list[str] = []
    unknown = [s for s in targets if s not in present]
    for s in unknown:
        if targets[s]:
            notes.append(f"stratum {s!r} has a target of {targets[s]} but no queries in the labels")
    untargeted = [s for s in present if s not in targets]
    if untargeted:
        notes.append(f"not sampled (no target): {', '.join(untargeted)}")
    order = list(targets) + untargeted
    by_name = {r["stratum"]: r for r in counts.iter_rows(named=True)}
    parts: list[pl.DataFrame] = []
    rows: list[StratumRow] = []
    for s in order:
        info = by_name.get(s, {"distinct": 0, "occurrences": 0, "share": 0.0})
        target = targets.get(s, 0)
        design: dict[str, float] | None = None
        if s in by_name and target:
            pool = labels.filter(pl.col("stratum") == s)
            drawn = draw_stratum(pool, target, seed, s, cap)
            parts.append(drawn)
            sampled = drawn.height
            design = design_effects(pool, target, cap)
        else:
            sampled = 0
        if sampled < target and s in by_name:
            notes.append(
                f"stratum {s!r}: only {sampled} distinct queries for a target of {target}; took them all"
            )
        rows.append(
            StratumRow(
                s,
                int(info["distinct"]),
                int(info["occurrences"]),
                float(info["share"]),
                target,
                sampled,
                design,
            )
        )
    empty = labels.head(0).with_columns(pl.lit(None, dtype=pl.Float64).alias(INCLUSION))
    sample = pl.concat(parts) if parts else empty
    sample = sample.select([*labels.columns, INCLUSION]).sort(["stratum", "query"])
    if QUERY_ID not in labels.columns:
        sample = sample.select(query_ids(sample.get_column("query")), pl.all())
        if sample.get_column(QUERY_ID).is_duplicated().any():  # 48 bits: never seen, never silent
            raise InputError(None, "two sampled queries share a query id; please report this")
    else:
        sample = sample.select(pl.col(QUERY_ID).cast(pl.Utf8), pl.exclude(QUERY_ID))
        ids = sample.get_column(QUERY_ID)
        if ids.is_null().any() or (ids.str.strip_chars() == "").any() or ids.is_duplicated().any():
            raise InputError(
                None, "LABELS's query_id column must give every sampled query its own, non-empty id"
            )
    result = SampleResult(sample, rows, sum(targets.values()), notes)
    result.closure = closure_checks(labels, result)
    return result


def report_frames(result: SampleResult) -> dict[str, pl.DataFrame]:
    """What ``goldset report`` reads: per sampled query its stratum, its count in the log and
    its inclusion probability (``--strata``: with count / pi the report estimates the per-search
    rate, with 1 / pi the distinct-query mean), and per stratum of the log its traffic share
    (``--traffic``). Every stratum
    of the log is listed, sampled or not, so the shares add to 1 and a stratum left out of the
    sample shows up in the report's closure checks instead of vanishing from the weighting."""
    strata = result.sample.select(
        QUERY_ID, "stratum", "count", INCLUSION, *([ORIGIN] if ORIGIN in result.sample else [])
    )
    listed = [r for r in result.rows if r.distinct]
    columns: dict[str, list[object]] = {
        "stratum": [r.stratum for r in listed],
        "share": [r.share for r in listed],
    }
    schema = {"stratum": pl.Utf8, "share": pl.Float64}
    if any(r.design is not None for r in listed):
        for name in DESIGN_COLUMNS:
            columns[name] = [None if r.design is None else r.design[name] for r in listed]
            schema[name] = pl.Float64
    traffic = pl.DataFrame(columns, schema=schema).sort("stratum")
    return {"strata": strata, "traffic": traffic}


def sample_closure_checks(result: SampleResult) -> list[ClosureCheck]:
    """The checks a sample can make without the log: shares, sample sizes, the set's size. A
    sample drawn in a warehouse (`goldset sample finish`) has only these."""
    rows = result.rows
    return [
        ClosureCheck("traffic shares sum to 1", 1.0, sum(r.share for r in rows)),
        ClosureCheck(
            "sample sizes sum to the set size",
            float(result.sample.get_column("query").n_unique()),
            float(sum(r.sampled for r in rows)),
            tolerance=0,
        ),
        ClosureCheck(
            "set size reaches the requested size",
            float(result.requested),
            float(sum(r.sampled for r in rows)),
            tolerance=0,
        ),
    ]


def closure_checks(labels: pl.DataFrame, result: SampleResult) -> list[ClosureCheck]:
    """The sampling table must close before anything is read from it
    (docs/background.md#table-closure)."""
    rows = result.rows
    shares, *sizes = sample_closure_checks(result)
    return [
        shares,
        ClosureCheck(
            "occurrences sum to the log's total",
            float(labels.get_column("count").sum()),
            float(sum(r.occurrences for r in rows)),
            tolerance=0,
        ),
        ClosureCheck(
            "every distinct query in exactly one stratum",
            float(labels.get_column("query").n_unique()),
            float(sum(r.distinct for r in rows)),
            tolerance=0,
        ),
        *sizes,
    ]
