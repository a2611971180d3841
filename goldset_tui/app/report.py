"""The stratified report's inputs, read and checked once for `goldset report`, `goldset review`
and the review screens opened from home and from the agreement screens."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from goldset_tui.errors import InputError

if TYPE_CHECKING:
    from goldset_tui.report.pipeline import Report


@dataclass
class ReportInputs:
    qrels: pl.DataFrame
    runs: dict[str, pl.DataFrame]
    strata: pl.DataFrame
    traffic: pl.DataFrame | None
    metric: str
    seed: int
    samples: int
    fuse: bool
    sampling_manifest: Path | None = None
    origins: pl.DataFrame | None = None  # query_id, origin: when the strata file has origin
    # Said about the qrels (a store's consensus with pairs still pending adjudication): they go
    # into the report's warnings, so the files written and the review's screen say it too.
    qrels_warnings: list[str] = field(default_factory=list)


def load_report_inputs(
    qrels: str,
    runs: list[str],
    strata: str,
    *,
    traffic: str | None = None,
    metric: str,
    seed: int,
    samples: int,
    fuse: bool = True,
    labeller: str | None = None,
    sampling_manifest: str | Path | None = None,
) -> ReportInputs:
    """Read and check every input before anything is computed or any screen opens: ``qrels`` a
    file or a store (its ``labeller``'s grades in force), ``runs`` NAME=PATH or PATH specs."""
    from goldset_tui.app.qrels import report_qrels
    from goldset_tui.app.runs import open_runs
    from goldset_tui.io.strata_and_traffic import read_strata, read_traffic
    from goldset_tui.io.trec import read_run

    if not runs:
        raise InputError(None, "give at least one --run NAME=PATH")
    metric = check_metric(metric)  # before reading any run
    if samples < 1:
        raise InputError(None, "--samples must be at least 1")
    # Opened and named as `goldset eval` does: '-', a pipe or <(zcat run.gz) read once, a bare
    # path named by its file name or, when that says nothing, by the run's tag (its runid).
    frames: dict[str, pl.DataFrame] = {
        name: read_run(r.source, tag=False, order=False)  # neither the tag nor the sort needed
        for name, r in open_runs(runs).items()
    }
    said: list[str] = []
    return ReportInputs(
        qrels=report_qrels(qrels, labeller, said.append),
        runs=frames,
        strata=read_strata(strata),
        traffic=read_traffic(traffic) if traffic else None,
        metric=metric,
        seed=seed,
        samples=samples,
        fuse=fuse,
        sampling_manifest=Path(sampling_manifest) if sampling_manifest else None,
        origins=read_origins(strata),
        qrels_warnings=said,
    )


def read_origins(strata: str | Path) -> pl.DataFrame | None:
    """``query_id, origin`` from a strata file with an ``origin`` column (a sample of synthetic
    queries: sampling/origin.py), else None."""
    from goldset_tui.io.tables import read_table
    from goldset_tui.sampling.origin import ORIGIN, has_origin_column, normalised_origin

    if not has_origin_column(strata):
        return None
    table = read_table(Path(strata), required=("query_id", ORIGIN), string_columns=("query_id",))
    return table.select(pl.col("query_id"), normalised_origin(table.get_column(ORIGIN))).unique(
        "query_id", keep="first", maintain_order=True
    )


def check_metric(metric: str) -> str:
    """The one measure --measure names, canonical. The engine owns measure names; ask it early
    so a typo, or a trec_eval form standing for several measures (`P.5,10`, `ndcg_cut`), is one
    line, not a late failure nor silently the first of them."""
    from goldset_tui.eval.measures import arithmetic_measure
    from goldset_tui.eval.trec_forms import one_measure

    try:
        name = one_measure(metric, option="--measure")
    except InputError:
        raise
    except (ValueError, KeyError) as exc:
        raise InputError(None, f"--measure {metric!r}: {exc}") from None
    # It printed AP's arithmetic mean under GMAP's name (0.917 where GMAP is 0.902, sample bm25).
    arithmetic_measure(
        name, option="--measure", does="the report's strata, intervals and weighting are"
    )
    return name


def build_report(inputs: ReportInputs) -> Report:
    from dataclasses import replace

    from goldset_tui.report.pipeline import compute_report

    report = compute_report(
        inputs.qrels,
        inputs.runs,
        inputs.strata,
        metric=inputs.metric,
        traffic=inputs.traffic,
        fuse=inputs.fuse,
        seed=inputs.seed,
        samples=inputs.samples,
    )
    if inputs.qrels_warnings:
        report.warnings[:0] = inputs.qrels_warnings
    return report if inputs.origins is None else replace(report, origins=inputs.origins)
