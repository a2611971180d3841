"""Opening a review: what the report and closure screens show, built for `goldset review`, the
home screen (a store and a labeller) and the agreement screens (a consensus, see
:mod:`goldset_tui.app.query_view`).

Two ways in:
- the same inputs as `goldset report` (qrels, runs, strata, traffic), plus optionally a store
  and a labeller to judge the missing pairs into, and a corpus/topics to show their texts;
- a store alone: qrels are its judgments, the runs are rebuilt from the systems and ranks its
  pool recorded, the strata and texts come from the pool too.

The result, :class:`ReviewSetup`, holds no screen: the UI makes its review context from it
(``goldset_tui.ui.opening.review_context``), adding the judging hook.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from goldset_tui.app.grade_sources import CONSENSUS, GradeSources, file_name
from goldset_tui.app.qrels import merge_qrels, store_grades_in_force
from goldset_tui.app.report import ReportInputs, build_report, check_metric, load_report_inputs
from goldset_tui.errors import InputError
from goldset_tui.eval.defaults import DEFAULT_METRIC, REPORT_SAMPLES
from goldset_tui.model import NO_STRATUM

if TYPE_CHECKING:
    from goldset_tui.report.pipeline import Report
    from goldset_tui.store.project import Project

# What `goldset review` and the home screen's review start from (the command's defaults).
METRIC = DEFAULT_METRIC  # Success@10: a query fails when no top 10 holds a relevant document
PAIRS_OUT = "missing_pairs.csv"


@dataclass
class ReviewSetup:
    """Everything the review screens start from, without a screen."""

    report: Report
    grades: GradeSources  # whose grades are in force, and the report rebuilt on others
    source: str | None  # the header's words for the grades in force
    source_key: str | None
    sources: list[str]  # the keys `l` cycles through
    project: Project | None = None  # the store missing pairs are judged into
    labeller: str | None = None  # whose judgments the missing pairs become
    topics: pl.DataFrame | None = None
    corpus: pl.DataFrame | None = None
    sampling_closure: list[dict[str, Any]] | None = None
    sampling_source: str | None = None
    store_warnings: list[str] = field(default_factory=list)
    labelled: Callable[[], pl.DataFrame] | None = None
    store: str | None = None
    out_dir: str | None = None
    consensus_key: str | None = None
    pairs_out: Path | None = None  # None: no judging from these screens

    @property
    def judge_as(self) -> str | None:
        return self.labeller if self.project is not None else None


def runs_from_pool(frame: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """Rebuild each system's ranking from the ``systems``/``ranks`` a pool recorded (score = -rank,
    so trec_eval's order is the recorded order)."""
    if (
        "systems" not in frame.columns
        or frame.get_column("systems").drop_nulls().list.len().sum() == 0
    ):
        return {}
    long = (
        frame.select("query_id", "doc_id", "systems", "ranks")
        .explode("systems", "ranks")
        .drop_nulls(["systems", "ranks"])
        .rename({"systems": "system", "ranks": "rank"})
    )
    return {
        str(name): part.select(
            "query_id",
            "doc_id",
            score=-pl.col("rank").cast(pl.Float64),
            rank=pl.col("rank").cast(pl.Int64),
        ).sort("query_id", "rank")
        for (name,), part in long.partition_by("system", as_dict=True, maintain_order=True).items()
    }


def inputs_from_store(
    store: str | Path,
    labeller: str | None,
    *,
    metric: str,
    seed: int,
    samples: int,
    fuse: bool,
    strata: str | None = None,
    traffic: str | None = None,
    corpus: str | None = None,
    sampling_manifest: str | None = None,
) -> tuple[ReportInputs, Project, pl.DataFrame]:
    """(inputs, project, pool frame) for a review of a store without runs."""
    from goldset_tui.io.pools import load_pool
    from goldset_tui.io.strata_and_traffic import read_strata, read_traffic
    from goldset_tui.store.project import Project

    metric = check_metric(metric)  # a typo or a form for several measures: before the work
    project = Project.open(store)
    pool = load_pool(project.pool_path, corpus=corpus, scale=project.scale)
    runs = runs_from_pool(pool.frame)
    if not runs:
        raise InputError(
            project.pool_path,
            "the pool records no systems/ranks: give --run NAME=PATH and --strata",
        )
    if strata:
        strata_frame = read_strata(strata)
    else:
        strata_frame = pool.frame.select("query_id", "stratum").unique(
            subset="query_id", maintain_order=True
        )
        if strata_frame.get_column("stratum").null_count() == strata_frame.height:
            raise InputError(
                project.pool_path, "the pool has no stratum column: give --strata FILE"
            )
        strata_frame = strata_frame.with_columns(pl.col("stratum").fill_null(NO_STRATUM))
    said: list[str] = []
    inputs = ReportInputs(
        qrels=store_grades_in_force(project, labeller, said.append),
        runs=runs,
        strata=strata_frame,
        traffic=read_traffic(traffic) if traffic else None,
        metric=metric,
        seed=seed,
        samples=samples,
        fuse=fuse,
        sampling_manifest=Path(sampling_manifest) if sampling_manifest else None,
        qrels_warnings=said,
    )
    return inputs, project, pool.frame


def review_setup(
    *,
    qrels: str | None = None,
    runs: list[str] | None = None,
    strata: str | None = None,
    traffic: str | None = None,
    metric: str = METRIC,
    seed: int = 0,
    samples: int = REPORT_SAMPLES,
    fuse: bool = True,
    store: str | Path | None = None,
    labeller: str | None = None,
    corpus: str | None = None,
    topics: str | None = None,
    sampling_manifest: str | None = None,
    out_dir: str | None = None,
    pairs_out: str | Path = PAIRS_OUT,
) -> ReviewSetup:
    """Read and check every input, compute the report: what the review screens share."""
    from goldset_tui.report.pipeline import read_sampling_closure

    project = None
    pool_frame = None
    if store and not runs:
        inputs, project, pool_frame = inputs_from_store(
            store,
            labeller,
            metric=metric,
            seed=seed,
            samples=samples,
            fuse=fuse,
            strata=strata,
            traffic=traffic,
            corpus=corpus,
            sampling_manifest=sampling_manifest,
        )
        sources = GradeSources(inputs, project, judge_as=labeller)
    else:
        if not qrels or not strata:
            raise InputError(
                None, "give --qrels, --run and --strata (as for `goldset report`), or --store DIR"
            )
        inputs = load_report_inputs(
            qrels,
            runs or [],
            strata,
            traffic=traffic,
            metric=metric,
            seed=seed,
            samples=samples,
            fuse=fuse,
            labeller=labeller,
            sampling_manifest=sampling_manifest,
        )
        sources = GradeSources(inputs, base=inputs.qrels, file_name=file_name(qrels, labeller))
        if store:
            from goldset_tui.store.project import Project

            project = Project.open(store)
            sources = GradeSources(
                inputs,
                project,
                base=inputs.qrels,
                file_name=file_name(qrels, labeller),
                judge_as=labeller,
            )
            # The store's grades are in force from the first frame, not only after judging.
            if labeller and labeller in project.labellers():
                inputs.qrels = merge_qrels(inputs.qrels, project.qrels(labeller))
    if project is not None and not labeller:
        raise InputError(None, "--store needs --labeller: whose judgments the missing pairs become")
    topic_texts = _topics(topics, pool_frame)
    corpus_texts = _corpus(corpus, pool_frame)
    manifest = inputs.sampling_manifest
    sampling = read_sampling_closure(manifest) if manifest else None
    report = build_report(inputs)
    key = labeller if project is not None else None
    return ReviewSetup(
        report,
        sources,
        source=sources.label(key),
        source_key=key,
        sources=sources.keys(),
        project=project,
        labeller=labeller,
        topics=topic_texts,
        corpus=corpus_texts,
        sampling_closure=sampling,
        sampling_source=str(manifest) if manifest else None,
        # A torn journal tail cut on open, or the like: said on the report screen too, not only
        # once judging opens.
        store_warnings=list(dict.fromkeys(project.warnings)) if project is not None else [],
        labelled=sources.labelled if project is not None else None,
        store=str(store) if store else None,
        out_dir=out_dir,
        consensus_key=CONSENSUS if project is not None else None,
        pairs_out=Path(pairs_out),
    )


def review_for_store(store: str | Path, labeller: str, *, metric: str = METRIC) -> ReviewSetup:
    """The review of a store as the home screen opens it: runs, strata and texts from its pool,
    ``labeller``'s grades in force, the rest as `goldset review --store DIR` defaults them."""
    return review_setup(store=str(store), labeller=labeller, metric=metric)


def _topics(topics: str | None, pool_frame: pl.DataFrame | None) -> pl.DataFrame | None:
    if topics:
        from goldset_tui.io.pools import read_topics

        return read_topics(topics).select("query_id", "query")
    if pool_frame is not None:
        return pool_frame.select("query_id", "query").unique(subset="query_id", maintain_order=True)
    return None


def _corpus(corpus: str | None, pool_frame: pl.DataFrame | None) -> pl.DataFrame | None:
    frames = []
    if corpus:
        from goldset_tui.io.corpus import read_corpus

        frames.append(read_corpus(corpus).select("doc_id", "text", "title"))
    if pool_frame is not None:
        frames.append(
            pool_frame.select("doc_id", "text", "title").unique(
                subset="doc_id", maintain_order=True
            )
        )
    if not frames:
        return None
    return pl.concat(frames).unique(subset="doc_id", keep="first", maintain_order=True)
