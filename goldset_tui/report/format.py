"""The report as data: JSON (fixed keys, documented in docs/report.md) and CSV (the table alone),
plus the number and text helpers the Markdown shares."""

from __future__ import annotations

import io
import json
import math
from typing import Any

import polars as pl

from goldset_tui.eval.strata import SMALL_STRATUM
from goldset_tui.report.model import Report


def clean(x: object) -> object:
    """JSON-safe: NaN -> None, numpy/polars scalars to Python."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def to_dict(report: Report) -> dict[str, Any]:
    """The JSON document, keys exactly as docs/report.md lists them (scripts read them)."""
    names = report.all_systems
    strata = []
    for stratum in report.strata:
        rows = report.table.filter(pl.col("stratum") == stratum)
        systems = {
            r["system"]: {
                "hits": r["hits"],
                "mean": clean(r["mean"]),
                "ci95": [clean(r["ci_lo"]), clean(r["ci_hi"])],
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
            "mean": clean(r["mean"]),
            "ci95": [clean(r["ci_lo"]), clean(r["ci_hi"])],
            "weighted_mean": clean(weighted),
            "weighted_ci95": _pair(
                report.weighted_ci.get(r["system"]) if report.weighted_ci is not None else None
            ),
            "design_weighted_mean": clean(
                report.design.get(r["system"]) if report.design is not None else None
            ),
            "design_weighted_ci95": _pair(
                report.design_ci.get(r["system"]) if report.design_ci is not None else None
            ),
            "design_weighted_se": clean(
                report.design_se.get(r["system"]) if report.design_se is not None else None
            ),
        }
    out: dict[str, Any] = {
        "metric": report.metric,
        "k": report.k,
        "n": report.n,
        "ci_method": report.method,
        "strata": strata,
        "overall": overall,
        "headlines": headlines(report),
        "closure": {
            "ok": report.closes,
            "checks": [
                {
                    "name": c.name,
                    "expected": clean(c.expected),
                    "actual": clean(c.actual),
                    "residual": clean(c.residual),
                }
                for c in report.closure
            ],
            "dropped": dropped_rows(report),
        },
        "overlap": [{k: clean(v) for k, v in o.items()} for o in report.overlap],
        "fusion": {n: {k: clean(v) for k, v in f.items()} for n, f in report.fusion.items()},
        "judged": {n: clean(v) for n, v in report.judged.items()},
        "paired": [_deep_clean(p) for p in report.paired],
        "paired_by_stratum": [_deep_clean(p) for p in report.by_stratum],
        "paired_note": fused_note(report),
        "unjudged_bounds": {n: _deep_clean(b) for n, b in report.unjudged_bounds.items()},
        "missing_from_runs": {
            name: {"missing": len(ids), "golden_set": report.golden_size, "query_ids": ids}
            for name, ids in report.missing_from_runs.items()
        },
        "decisions": decisions_json(report),
    }
    if report.strata_changed is not None:  # only then, as origin: old reports read the same
        out["strata_changed"] = report.strata_changed
    if report.origins is not None:  # only then: reports of real traffic read as they always did
        origins = report.origins.get_column("origin")
        out["origin"] = {
            "synthetic": int((origins == "synthetic").sum()),
            "real": int((origins == "real").sum()),
            "note": report.origin_line,
        }
    # Last, so every key before it keeps its place: the same sentences as the Markdown's
    # "Warnings" and stderr (a store's own warnings first), exact text as JSON keeps all data.
    out["warnings"] = list(report.warnings)
    return out


def decisions_json(report: Report) -> dict[str, Any] | None:
    """The decision block (docs/report.md, "Decisions"): `goldset route`'s when it made the
    report, else the default one (each stratum to its best run, the router never wrong); None
    without traffic shares or with one run."""
    from goldset_tui.decisions.of_report import report_decisions

    if report.decisions is None:
        report.decisions = report_decisions(report)
    return report.decisions.to_json() if report.decisions is not None else None


def headlines(report: Report) -> dict[str, dict[str, Any]]:
    """Per headline the report gives (``unweighted``, ``weighted``, ``design_weighted``): what
    it estimates (``estimand``), in plain words, and its fields in ``overall``."""
    fields = {
        "unweighted": ("mean", "ci95"),
        "weighted": ("weighted_mean", "weighted_ci95"),
        "design_weighted": ("design_weighted_mean", "design_weighted_ci95"),
    }
    return {
        name: {"estimand": text, "mean": fields[name][0], "ci95": fields[name][1]}
        | ({"basis": report.weighted_kind} if name == "weighted" else {})
        for name, text in report.estimands.items()
    }


def _pair(ci: tuple[float, float] | list[float] | None) -> list[object]:
    return [None, None] if ci is None else [clean(x) for x in ci]


def _deep_clean(d: dict[str, Any]) -> dict[str, Any]:
    return {
        k: [clean(x) for x in v] if isinstance(v, (list, tuple)) else clean(v) for k, v in d.items()
    }


def fused_note(report: Report) -> str | None:
    """Said wherever a fused run is compared: its p-values are not those of an independent
    system, and Holm's adjustment does not make them so."""
    if not report.fused:
        return None
    return (
        f"{report.fused} is fused from {', '.join(report.systems)}: it is not independent of its "
        "inputs, so a comparison with one of them tests what fusion added, not two rival systems"
    )


def dropped_rows(report: Report) -> list[dict[str, str]]:
    """Golden-set queries the table leaves out: ``{"query_id", "stratum", "why"}`` each."""
    if report.dropped is None:
        return []
    return [dict(r) for r in report.dropped.iter_rows(named=True)]


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


def fmt_num(x: float | None, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    if float(x).is_integer():
        return str(int(x))
    return f"{x:.{digits}f}"


def fmt_fixed(x: float | None, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    return f"{x:.{digits}f}"


def cell_text(hits: int | None, n: int, mean: float, lo: float, hi: float, small: bool) -> str:
    """One format for every cell of the Markdown table, small stratum or not, overall row too:
    ``8/18 · 0.444 [0.246, 0.663]`` (the count first: on a small stratum the count is a fact and
    the rate mostly noise, docs/background.md#stratum-depth),
    or ``0.653 [0.544, 0.749]`` for a measure without hits. ``small`` is marked on the row (†)."""
    interval = f"{fmt_fixed(mean)} [{fmt_fixed(lo)}, {fmt_fixed(hi)}]"
    return interval if hits is None else f"{hits}/{n} · {interval}"


def failing_csv(report: Report) -> str:
    buf = io.StringIO()
    failing = report.failing
    if report.origins is not None:
        failing = failing.join(report.origins, on="query_id", how="left", maintain_order="left")
    failing.write_csv(buf)
    return buf.getvalue()
