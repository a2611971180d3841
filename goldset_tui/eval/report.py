"""The engineer's report (issue 5): the stratified table with intervals, its closure, the weighted
headline, failure-set overlap, fusion headroom, the unjudged fraction and paired comparisons.

Two layers. :func:`assemble_report` is pure over a per-query score frame (``system, query_id,
value``) and the strata, so tests and notebooks can feed it synthetic data. :func:`compute_report`
reads qrels and runs through the evaluation engine (metrics, fusion, stats) and then assembles.
Renderers turn a :class:`Report` into JSON (fixed keys), Markdown (for people) and CSV (the table).
"""

from __future__ import annotations

import io
import json
import math
import re
from dataclasses import dataclass, field

import polars as pl

from goldset_tui.closure import ClosureCheck, all_ok
from goldset_tui.eval.intervals import (
    DEFAULT_CONFIDENCE,
    DEFAULT_SAMPLES,
    DEFAULT_SEED,
    method_name,
)
from goldset_tui.eval.overlap import (
    failure_overlap,
    headroom_collected,
    oracle_mean,
    rescued_misses,
    stratum_overlap,
)
from goldset_tui.eval.strata import (
    SMALL_STRATUM,
    closure_checks,
    empty_strata,
    failing_queries,
    is_binary,
    overall_table,
    strata_order,
    stratum_table,
    weighted_means,
)
from goldset_tui.text import visible

# Seed 000: once more than about a fifth of a run's top k is unjudged, its numbers drift away
# from what the pool was built to measure.
UNJUDGED_WARNING = 0.20
DEFAULT_METRIC = "Success@10"
DEFAULT_K = 10
FUSED_NAME = "rrf"


@dataclass
class Report:
    metric: str
    k: int
    n: int
    binary: bool
    systems: list[str]  # the runs given, in order
    fused: str | None  # name of the fused system, when there is one
    table: pl.DataFrame  # stratum, system, n, hits, mean, ci_lo, ci_hi, small
    overall: pl.DataFrame  # system, n, hits, mean, ci_lo, ci_hi
    closure: list[ClosureCheck]
    strata: list[str]
    scores: pl.DataFrame  # system, query_id, value
    failing: pl.DataFrame  # system, stratum, query_id
    weighted: dict[str, float] | None = None
    overlap: list[dict] = field(default_factory=list)
    fusion: dict[str, dict] = field(default_factory=dict)
    judged: dict[str, float] = field(default_factory=dict)
    paired: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # system, query_id, rank, doc_id, grade (null = unjudged): each run's top k, for drilling down.
    topk: pl.DataFrame | None = None
    strata_frame: pl.DataFrame | None = None  # query_id, stratum as given
    # Each run's top `fusion_depth` went into the fused run (None: every document retrieved).
    fusion_depth: int | None = None
    headroom_note: str | None = None  # why headroom is null, or how to read an unusual value

    @property
    def method(self) -> str:
        return method_name(self.binary)

    @property
    def all_systems(self) -> list[str]:
        return self.systems + ([self.fused] if self.fused else [])

    @property
    def closes(self) -> bool:
        return all_ok(self.closure)


def cutoff(metric: str, default: int = DEFAULT_K) -> int:
    """The k of ``Success@10`` or ``P(rel=2)@5``; ``default`` for measures without one (AP)."""
    return explicit_cutoff(metric) or default


def explicit_cutoff(metric: str) -> int | None:
    """The k of ``Success@10``; None for a measure without one (AP, RR, Rprec)."""
    m = re.search(r"@(\d+)\s*$", metric)
    return int(m.group(1)) if m else None


NO_CUTOFF_HEADROOM = (
    "{metric} has no cutoff, so the oracle is no bound on fusion: a fused list can score above or "
    "below both runs on the same query, and the share would be meaningless"
)


def fusion_headroom(
    metric: str, fused: float, best: float, oracle: float
) -> tuple[float | None, str | None]:
    """Headroom collected and a note. Seed 004's bound (an oracle over the runs is a ceiling for
    any merge of them) holds for a measure with a cutoff k when the fused top k is built from
    the runs' top k alone, which is how the report fuses. Without a cutoff there is no such
    ceiling, so no share is given. With a graded or multi-document measure (nDCG@k, P@k) fusion
    can still beat the oracle by pooling relevant documents from both lists; that is said."""
    if explicit_cutoff(metric) is None:
        return None, NO_CUTOFF_HEADROOM.format(metric=metric)
    share = headroom_collected(fused, best, oracle)
    if share is None:
        return (
            None,
            "the oracle is no better than the best single system: there is no headroom to collect",
        )
    if share > 1:
        return share, (
            "above 1: on this measure the fused top k can beat both runs on the same query, since a "
            "document both lists hold rises and relevant documents from both lists are pooled; the "
            "oracle of the single runs is no ceiling here"
        )
    if share < 0:
        return share, "below 0: the fused run scores under the best single system"
    return share, None


# --- assembly (pure) -------------------------------------------------------------------------


def assemble_report(
    scores: pl.DataFrame,
    strata: pl.DataFrame,
    *,
    metric: str = DEFAULT_METRIC,
    k: int | None = None,
    traffic: pl.DataFrame | None = None,
    systems: list[str] | None = None,
    fused: str | None = None,
    judged: dict[str, float] | None = None,
    paired: list[dict] | None = None,
    seed: int = DEFAULT_SEED,
    samples: int = DEFAULT_SAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    fusion_depth: int | None = None,
) -> Report:
    """Everything but the engine's work. ``scores`` must hold every evaluated query for every
    system (including the fused one, named ``fused``); ``systems`` are the single runs."""
    every = scores.get_column("system").unique(maintain_order=True).to_list()
    systems = systems or [s for s in every if s != fused]
    binary = is_binary(scores)
    order = strata_order(strata, traffic)
    table = stratum_table(
        scores,
        strata,
        binary=binary,
        confidence=confidence,
        seed=seed,
        samples=samples,
        order=order,
    )
    overall = overall_table(
        scores, binary=binary, confidence=confidence, seed=seed, samples=samples
    )
    checks = closure_checks(scores, strata, table, traffic, binary=binary)
    in_table = set(table.get_column("stratum").to_list())
    report = Report(
        metric=metric,
        k=k if k is not None else cutoff(metric),
        n=scores.get_column("query_id").n_unique(),
        binary=binary,
        systems=systems,
        fused=fused,
        table=table,
        overall=overall,
        closure=checks,
        strata=[s for s in order if s in in_table],
        scores=scores,
        failing=failing_queries(scores, strata),
        weighted=weighted_means(table, traffic) if traffic is not None else None,
        overlap=failure_overlap(scores, systems + ([fused] if fused else [])),
        judged=dict(judged or {}),
        paired=list(paired or []),
        strata_frame=strata,
        fusion_depth=fusion_depth,
    )
    if fused and len(systems) >= 2:
        means = dict(overall.select("system", "mean").iter_rows())
        best = max(means[s] for s in systems)
        oracle = oracle_mean(scores, systems)
        share, report.headroom_note = fusion_headroom(metric, means[fused], best, oracle)
        report.fusion = {fused: {"mean": means[fused], "headroom_collected": share}}
    report.warnings = _warnings(report, strata, traffic)
    return report


def _warnings(report: Report, strata: pl.DataFrame, traffic: pl.DataFrame | None) -> list[str]:
    out: list[str] = []
    for name, fraction in report.judged.items():
        unjudged = 1.0 - fraction
        if unjudged > UNJUDGED_WARNING:
            out.append(
                f"{name}: {unjudged:.0%} of its top {report.k} is unjudged (above {UNJUDGED_WARNING:.0%}): "
                "unjudged documents count as not relevant, so its numbers are biased low; judge the missing pairs"
            )
    failed = [c for c in report.closure if not c.ok]
    if failed:
        out.append(
            "the table does not close: "
            + "; ".join(f"{c.name} (residual {_num(c.residual)})" for c in failed)
        )
    small = (
        report.table.filter(pl.col("small"))
        .get_column("stratum")
        .unique(maintain_order=True)
        .to_list()
    )
    if small:
        out.append(
            f"under {SMALL_STRATUM} queries, read as counts of failures, not as rates: "
            + ", ".join(small)
        )
    unevaluated = strata.join(
        report.scores.select("query_id").unique(), on="query_id", how="anti"
    ).height
    if unevaluated:
        out.append(
            f"{unevaluated} query id(s) in the strata file are not evaluated"
            " (not in the qrels, or no relevant document)"
        )
    empty = empty_strata(strata, report.scores, traffic)
    if empty:
        out.append("strata without evaluated queries: " + ", ".join(empty))
    return out


# --- engine (qrels + runs -> per-query scores) -------------------------------------------------


def judged_fraction(qrels: pl.DataFrame, run: pl.DataFrame, k: int, queries: pl.Series) -> float:
    """Share of the run's top-k slots (over ``queries``) whose document has a grade >= 0 in the
    qrels. Negative grades are "pooled but unjudged" (trec_eval) and count as unjudged."""
    return judged_shares(topk_frame(qrels, {"run": run}, k, queries), ["run"])["run"]


def judged_shares(topk: pl.DataFrame, systems: list[str]) -> dict[str, float]:
    """Per system, the share of its rows in ``topk_frame``'s frame that have a grade (nan: none)."""
    counts = {
        name: (n, hit)
        for name, n, hit in topk.group_by("system")
        .agg(pl.len(), pl.col("grade").is_not_null().sum())
        .iter_rows()
    }
    return {
        name: counts[name][1] / counts[name][0] if name in counts else math.nan for name in systems
    }


def per_query(
    qrels: pl.DataFrame, run: pl.DataFrame, metric: str, queries: pl.Series, system: str
) -> pl.DataFrame:
    """system, query_id, value for every query in ``queries`` (missing from the run: 0)."""
    from goldset_tui.eval.metrics import evaluate_wide

    wide = evaluate_wide(qrels, run, [metric])
    column = next(c for c in wide.columns if c != "query_id")
    base = pl.DataFrame({"query_id": queries})
    return (
        base.join(wide.select("query_id", pl.col(column).alias("value")), on="query_id", how="left")
        .with_columns(system=pl.lit(system), value=pl.col("value").fill_null(0.0).cast(pl.Float64))
        .select("system", "query_id", "value")
    )


def compute_report(
    qrels: pl.DataFrame,
    runs: dict[str, pl.DataFrame],
    strata: pl.DataFrame,
    *,
    metric: str = DEFAULT_METRIC,
    traffic: pl.DataFrame | None = None,
    fuse: bool = True,
    seed: int = DEFAULT_SEED,
    samples: int = DEFAULT_SAMPLES,
    k: int | None = None,
) -> Report:
    """Evaluate every run (and their RRF fusion) on ``metric`` and assemble the report."""
    from goldset_tui.eval.measures import canonical, parse_measure
    from goldset_tui.eval.metrics import relevant_queries

    measure = parse_measure(metric)
    metric = canonical(measure)
    k = k if k is not None else cutoff(metric)
    queries = relevant_queries(qrels)
    if queries.len() == 0:
        from goldset_tui.errors import InputError

        raise InputError(
            None, "no query in the qrels has a relevant document (grade >= 1): nothing to report"
        )
    names = list(runs)
    all_runs = dict(runs)
    fused = None
    # Fuse each run's top k only, for a measure with a cutoff: then the fused top k holds nothing
    # the runs' top k lack, a query both runs miss stays missed, and the oracle bounds the fused
    # run (seed 004). Fusing the full depth could promote a document from rank 30 into the top k.
    depth = explicit_cutoff(metric)
    if fuse and len(runs) >= 2:
        from goldset_tui.eval.fusion import rrf

        fused = FUSED_NAME if FUSED_NAME not in runs else f"{FUSED_NAME}_fused"
        all_runs[fused] = rrf(
            list(runs.values()), depth=depth, order=False
        )  # evaluation needs no sort
    scores = pl.concat(
        [per_query(qrels, run, metric, queries, name) for name, run in all_runs.items()]
    )
    topk = topk_frame(
        qrels, all_runs, k, queries
    )  # also gives each run's judged share of its top k
    judged = judged_shares(topk, list(all_runs))
    paired = paired_comparisons(scores, list(all_runs), seed=seed, samples=samples)
    report = assemble_report(
        scores,
        strata,
        metric=metric,
        k=k,
        traffic=traffic,
        systems=names,
        fused=fused,
        judged=judged,
        paired=paired,
        seed=seed,
        samples=samples,
        fusion_depth=depth if fused else None,
    )
    report.topk = topk
    return report


def topk_frame(
    qrels: pl.DataFrame, runs: dict[str, pl.DataFrame], k: int, queries: pl.Series
) -> pl.DataFrame:
    """Every run's top k on the evaluated queries with each document's grade (null: unjudged;
    a negative "pooled but unjudged" grade is shown as unjudged too)."""
    grades = (
        qrels.filter(pl.col("grade") >= 0).group_by("query_id", "doc_id").agg(pl.col("grade").max())
    )
    frames = [
        run.filter((pl.col("rank") <= k) & pl.col("query_id").is_in(queries.implode())).select(
            pl.lit(name).alias("system"), "query_id", pl.col("rank").cast(pl.Int64), "doc_id"
        )
        for name, run in runs.items()
    ]
    top = (
        pl.concat(frames)
        if frames
        else pl.DataFrame(
            schema={"system": pl.Utf8, "query_id": pl.Utf8, "rank": pl.Int64, "doc_id": pl.Utf8}
        )
    )
    return top.join(grades, on=["query_id", "doc_id"], how="left").sort(
        "system", "query_id", "rank"
    )


def missing_pairs(topk: pl.DataFrame, query_ids: list[str] | None = None) -> pl.DataFrame:
    """``query_id, doc_id`` of unjudged documents in any system's top k (first appearance order)."""
    rows = topk if query_ids is None else topk.filter(pl.col("query_id").is_in(query_ids))
    return (
        rows.filter(pl.col("grade").is_null())
        .sort("query_id", "rank", "system")
        .select("query_id", "doc_id")
        .unique(maintain_order=True)
    )


def missing_pool(
    pairs: pl.DataFrame, topics: pl.DataFrame | None = None, corpus: pl.DataFrame | None = None
) -> pl.DataFrame:
    """A pool frame (query_id, query, doc_id, text, title) for the missing pairs, texts from the
    topics and corpus when given. Rows without a text keep ``text`` null: the caller decides
    whether to judge them or write them out for later."""
    pool = pairs
    if topics is not None:
        pool = pool.join(topics.select("query_id", "query"), on="query_id", how="left")
    else:
        pool = pool.with_columns(query=pl.lit(None, dtype=pl.Utf8))
    if corpus is not None:
        pool = pool.join(corpus.select("doc_id", "text", "title"), on="doc_id", how="left")
    else:
        pool = pool.with_columns(
            text=pl.lit(None, dtype=pl.Utf8), title=pl.lit(None, dtype=pl.Utf8)
        )
    return pool.with_columns(pl.col("query").fill_null(pl.col("query_id"))).select(
        "query_id", "query", "doc_id", "text", "title"
    )


def paired_comparisons(
    scores: pl.DataFrame, systems: list[str], *, seed: int, samples: int
) -> list[dict]:
    """The engine's paired comparison for every pair, on the same queries in the same order."""
    from itertools import combinations

    from goldset_tui.eval.stats import paired_comparison

    w = scores.pivot(on="system", index="query_id", values="value").sort("query_id").fill_null(0.0)
    out = []
    for a, b in combinations(systems, 2):
        r = paired_comparison(w.get_column(a), w.get_column(b), seed=seed, samples=samples)
        out.append(
            {
                "a": a,
                "b": b,
                "mean_diff": float(r.mean_diff),
                "ci95": [float(x) for x in r.ci95],
                "p_value": float(r.p_value),
                "wins": int(r.wins),
                "losses": int(r.losses),
                "ties": int(r.ties),
            }
        )
    return out


# --- output ----------------------------------------------------------------------------------


def _clean(x):
    """JSON-safe: NaN -> None, numpy/polars scalars to Python."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def to_dict(report: Report) -> dict:
    """The JSON document, keys exactly as issue 5 fixes them."""
    names = report.all_systems
    strata = []
    for stratum in report.strata:
        rows = report.table.filter(pl.col("stratum") == stratum)
        systems = {
            r["system"]: {
                "hits": r["hits"],
                "mean": _clean(r["mean"]),
                "ci95": [_clean(r["ci_lo"]), _clean(r["ci_hi"])],
            }
            for r in rows.iter_rows(named=True)
        }
        strata.append(
            {
                "stratum": stratum,
                "n": int(rows.get_column("n")[0]),
                "small": bool(rows.get_column("small")[0]),
                "systems": {s: systems[s] for s in names if s in systems},
            }
        )
    overall = {}
    for r in report.overall.iter_rows(named=True):
        weighted = report.weighted.get(r["system"]) if report.weighted is not None else None
        overall[r["system"]] = {
            "hits": r["hits"],
            "mean": _clean(r["mean"]),
            "ci95": [_clean(r["ci_lo"]), _clean(r["ci_hi"])],
            "weighted_mean": _clean(weighted),
        }
    return {
        "metric": report.metric,
        "k": report.k,
        "n": report.n,
        "strata": strata,
        "overall": overall,
        "closure": {
            "ok": report.closes,
            "checks": [
                {
                    "name": c.name,
                    "expected": _clean(c.expected),
                    "actual": _clean(c.actual),
                    "residual": _clean(c.residual),
                }
                for c in report.closure
            ],
        },
        "overlap": [{k: _clean(v) for k, v in o.items()} for o in report.overlap],
        "fusion": {n: {k: _clean(v) for k, v in f.items()} for n, f in report.fusion.items()},
        "judged": {n: _clean(v) for n, v in report.judged.items()},
        "paired": [
            {**p, "ci95": [_clean(x) for x in p["ci95"]], "p_value": _clean(p["p_value"])}
            for p in report.paired
        ],
    }


def to_json(report: Report) -> str:
    return json.dumps(to_dict(report), indent=2, ensure_ascii=False) + "\n"


def to_csv(report: Report) -> str:
    """The stratified table alone, one row per stratum and system, then the ``ALL`` rows."""
    rows = report.table.with_columns(method=pl.lit(report.method))
    total = report.overall.with_columns(
        stratum=pl.lit("ALL"), small=pl.col("n") < SMALL_STRATUM, method=pl.lit(report.method)
    )
    cols = ["stratum", "system", "n", "hits", "mean", "ci_lo", "ci_hi", "method", "small"]
    frame = pl.concat([rows.select(cols), total.select(cols)])
    buf = io.StringIO()
    frame.write_csv(buf, float_precision=6)
    return buf.getvalue()


def _num(x: float | None, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    if float(x).is_integer():
        return str(int(x))
    return f"{x:.{digits}f}"


def _fixed(x: float | None, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    return f"{x:.{digits}f}"


def _md(text: object) -> str:
    # Data in Markdown read in a terminal: control characters shown (an ESC must not reach the
    # terminal), and no pipes or newlines that would break a table row.
    return visible(text, keep_newlines=False).replace("|", "\\|")


def _rescue_sentence(report: Report, a: str, b: str) -> str:
    """What fusion did with the shared misses, measured rather than asserted."""
    if not report.fused:
        return "Merging two lists can only promote documents one of them retrieved."
    rescued = rescued_misses(report.scores, a, b, report.fused)
    where = (
        f"fusing each run's top {report.fusion_depth}"
        if report.fusion_depth is not None
        else "fusing every document the runs retrieved"
    )
    if rescued == 0:
        return (
            f"The fused run ({where}) rescues none of them: it can only promote documents one of the "
            "two lists holds, and neither holds one that counts."
        )
    return f"The fused run ({where}) rescues {rescued} of them."


def cell_text(hits: int | None, n: int, mean: float, lo: float, hi: float, small: bool) -> str:
    interval = f"[{_fixed(lo, 2)}, {_fixed(hi, 2)}]"
    if hits is not None:
        # A small stratum is read as a count first (seed 004: "eight and seven are facts").
        return (
            f"{hits}/{n} hits ({mean:.2f} {interval})"
            if small
            else f"{mean:.2f} {interval} {hits}/{n}"
        )
    return f"{mean:.3f} {interval}"


def to_markdown(report: Report) -> str:
    names = report.all_systems
    interval = (
        "Wilson score interval (binary measure)"
        if report.binary
        else "percentile bootstrap of the mean (seeded)"
    )
    lines = [
        f"# Report: {report.metric} over {report.n} queries",
        "",
        f"95% intervals: {interval}. Rows marked † have under {SMALL_STRATUM} queries: read them as counts "
        "of failures to go and read, not as rates to compare.",
        "",
    ]
    if report.warnings:
        lines += ["## Warnings", ""] + [f"- {_md(w)}" for w in report.warnings] + [""]
    lines += [
        "## By stratum",
        "",
        "| stratum | n | " + " | ".join(_md(s) for s in names) + " |",
        "|---|---:|" + "---:|" * len(names),
    ]
    cells = {(r["stratum"], r["system"]): r for r in report.table.iter_rows(named=True)}
    for stratum in report.strata:
        row = [cells.get((stratum, s)) for s in names]
        first = next(r for r in row if r)
        mark = " †" if first["small"] else ""
        texts = [
            cell_text(r["hits"], r["n"], r["mean"], r["ci_lo"], r["ci_hi"], r["small"])
            if r
            else "-"
            for r in row
        ]
        lines.append(f"| {_md(stratum)}{mark} | {first['n']} | " + " | ".join(texts) + " |")
    over = {r["system"]: r for r in report.overall.iter_rows(named=True)}
    texts = [
        cell_text(
            over[s]["hits"],
            over[s]["n"],
            over[s]["mean"],
            over[s]["ci_lo"],
            over[s]["ci_hi"],
            False,
        )
        for s in names
    ]
    lines.append(f"| **all** | {report.n} | " + " | ".join(texts) + " |")
    lines += [
        "",
        "## Headline",
        "",
        "| system | unweighted | traffic-weighted | difference |",
        "|---|---:|---:|---:|",
    ]
    for s in names:
        w = report.weighted.get(s) if report.weighted is not None else None
        diff = (w - over[s]["mean"]) if w is not None else None
        lines.append(
            f"| {_md(s)} | {over[s]['mean']:.3f} | {_fixed(w)} | {'-' if diff is None else f'{diff:+.3f}'} |"
        )
    if report.weighted is None:
        lines += ["", "No traffic file: the weighted headline needs `--traffic stratum,share`."]
    lines += [
        "",
        "## Closure",
        "",
        f"The table {'closes' if report.closes else 'DOES NOT close'}.",
        "",
        "| check | expected | actual | residual | ok |",
        "|---|---:|---:|---:|---|",
    ]
    for c in report.closure:
        lines.append(
            f"| {_md(c.name)} | {_num(c.expected, 4)} | {_num(c.actual, 4)}"
            f" | {_num(c.residual, 4)} | {'yes' if c.ok else 'NO'} |"
        )
    if report.overlap:
        lines += [
            "",
            "## Failure-set overlap",
            "",
            "A miss is a query scored 0. The oracle takes the better of the two systems on every query.",
            "",
            "| a | b | misses a | misses b | both miss | either misses | oracle |",
            "|---|---|---:|---:|---:|---:|---:|",
        ]
        for o in report.overlap:
            lines.append(
                f"| {_md(o['a'])} | {_md(o['b'])} | {o['miss_a']} | {o['miss_b']}"
                f" | {o['both_miss']} | {o['either_miss']} | {o['oracle']:.3f} |"
            )
        if report.strata_frame is not None and len(report.systems) >= 2:
            a, b = report.systems[0], report.systems[1]
            per = stratum_overlap(report.scores, report.strata_frame, a, b)
            lines += [
                "",
                f"Shared misses of {_md(a)} and {_md(b)} by stratum. "
                + _rescue_sentence(report, a, b)
                + " *At most* is the bound the two miss counts give alone (the smaller one).",
                "",
                "| stratum | n | misses a | misses b | both miss | at most |",
                "|---|---:|---:|---:|---:|---:|",
            ]
            for r in per.iter_rows(named=True):
                lines.append(
                    f"| {_md(r['stratum'])} | {r['n']} | {r['miss_a']} | {r['miss_b']}"
                    f" | {r['both_miss']} | {r['both_miss_bound']} |"
                )
    for f in report.fusion.values():
        share = f["headroom_collected"]
        depth = (
            f"each run's top {report.fusion_depth}"
            if report.fusion_depth is not None
            else "every document each run retrieved"
        )
        value = f"{share:.2f}" if share is not None else "none"
        lines += [
            "",
            "## Fusion",
            "",
            f"Reciprocal rank fusion (k = 60) of {depth} from {', '.join(_md(s) for s in report.systems)} "
            f"scores {f['mean']:.3f}. Headroom collected = (fused - best single) / (oracle of the single "
            f"systems - best single): {value}"
            + (f" ({report.headroom_note})." if report.headroom_note else "."),
        ]
    if report.judged:
        lines += [
            "",
            f"## Judged fraction of each run's top {report.k}",
            "",
            "| system | judged | unjudged |",
            "|---|---:|---:|",
        ]
        for s, v in report.judged.items():
            flag = " ⚠" if v == v and 1 - v > UNJUDGED_WARNING else ""
            lines.append(f"| {_md(s)} | {_fixed(v)} | {_fixed(1 - v)}{flag} |")
    if report.paired:
        lines += [
            "",
            "## Paired comparisons",
            "",
            "| a | b | mean diff (a - b) | 95% CI | p | wins | losses | ties |",
            "|---|---|---:|---|---:|---:|---:|---:|",
        ]
        for p in report.paired:
            lines.append(
                f"| {_md(p['a'])} | {_md(p['b'])} | {p['mean_diff']:+.3f}"
                f" | [{_fixed(p['ci95'][0])}, {_fixed(p['ci95'][1])}] | "
                f"{_fixed(p['p_value'], 4)} | {p['wins']} | {p['losses']} | {p['ties']} |"
            )
    return "\n".join(lines) + "\n"


def failing_csv(report: Report) -> str:
    buf = io.StringIO()
    report.failing.write_csv(buf)
    return buf.getvalue()


def read_sampling_closure(path) -> list[dict]:
    """The ``closure`` checks of a sampling manifest (TOML): a ``[[closure]]`` array of tables
    ``{name, expected, actual, residual, ok}``, or ``[closure] checks = [...]``."""
    from pathlib import Path

    from goldset_tui.errors import InputError
    from goldset_tui.io.tables import check_file
    from goldset_tui.io.tomlfile import parse_toml

    p = check_file(path)
    data = parse_toml(p, p.read_bytes())
    closure = data.get("closure")
    if isinstance(closure, dict):
        closure = closure.get("checks")
    if not isinstance(closure, list) or not all(
        isinstance(c, dict) and "name" in c for c in closure
    ):
        raise InputError(
            Path(p),
            "no [[closure]] checks (each with name, expected, actual, residual, ok)",
            column="closure",
        )
    return [dict(c) for c in closure]
