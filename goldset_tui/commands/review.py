"""`goldset review`: the report and closure screens, with judging of the holes they find.

Two ways in:
- the same arguments as `goldset report` (qrels, runs, strata, traffic), plus optionally a store
  and a labeller to judge the missing pairs into, and a corpus/topics to show their texts;
- a store alone (`--store DIR`): qrels are its judgments, the runs are rebuilt from the systems and
  ranks its pool recorded, the strata and texts come from the pool too.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import polars as pl

from goldset_tui.commands.report import (
    ReportInputs,
    add_input_arguments,
    build,
    check_metric,
    load_inputs,
    merge_qrels,
    store_grades_in_force,
)
from goldset_tui.errors import InputError

NAME = "review"
HELP = "open the report and closure screens; drill into failing queries and judge the missing pairs"
DESCRIPTION = """\
Opens the stratified report (each interval drawn as a bar). Enter on a cell lists that stratum's
failing queries for that system; Enter on a query shows every system's top k with each document's
grade, unjudged ones marked [?] (n/p: the next/previous failing query), beside the highlighted
document's text with the query's terms marked (t hides it; ] and [ turn its pages), its grades
by labeller (≠: they disagree, a opens the disagreement; =: a tied score decided its rank) and
the relevant documents outside every top k with each system's rank; i lists the ids in full. J judges the missing pairs
(with --store and --labeller) and the report is recomputed when you come back (Escape).
c opens the closure screen (with the sampling manifest's checks when --sampling-manifest is
given); s the whole report beyond the table (headlines with intervals, fusion against the best
single run and the oracle, failure overlap, judged shares, paired tests), every figure as
`goldset report --format json` gives it; o the failure overlap of every pair (Enter: its queries,
with what fusion rescues). The header names the measure and whose grades are in force; l
switches to the store's next labeller or its consensus, m to the next measure. A golden-set
query with no relevant grade yet but unjudged documents in a top k stays in the failing lists,
marked unjudged, for J to reach. On every screen: y copies the highlighted id and Y the list's
ids (OSC 52: over SSH too), e and E write the table as Markdown and CSV into -o DIR (never over
a file), / or g finds a query, ? lists the keys.

examples:
  goldset review --qrels sample_data/judgments/alice.qrels --run bm25=sample_data/runs/bm25.run \\
      --run minilm=sample_data/runs/minilm.run --strata sample_data/strata.csv
  goldset review --qrels qrels.txt --run bm25=bm25.run --run dense=dense.run --strata strata.csv
  goldset review --store ~/.local/share/goldset/projects/mypool --labeller ana --metric Success@10
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input_arguments(p, runs_required=False)
    p.add_argument(
        "--store",
        metavar="DIR",
        help="goldset store: the --labeller's grades in it are in force from the first screen "
        "(over --qrels, or over the pool's prior judgments); missing pairs are judged into it; "
        "alone, review it",
    )
    p.add_argument(
        "--corpus", metavar="FILE", help="document texts (BEIR corpus.jsonl or doc_id,text table)"
    )
    p.add_argument(
        "--topics", metavar="FILE", help="query texts (BEIR queries.jsonl or TSV qid<TAB>text)"
    )
    p.add_argument(
        "--sampling-manifest",
        metavar="FILE",
        help="sampling manifest whose [[closure]] checks to show",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="DIR",
        help="where e (Markdown) and E (CSV) write a screen's table or list (default: the current "
        "folder); a file already there is never overwritten",
    )
    p.add_argument(
        "--pairs-out",
        metavar="FILE",
        default="missing_pairs.csv",
        help="where missing pairs go when they cannot be judged here (default missing_pairs.csv in "
        "the current folder; the screen names the full path)",
    )


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


def inputs_from_store(args: argparse.Namespace):
    """(ReportInputs, project, pool frame) for `goldset review --store DIR` without runs."""
    from goldset_tui.eval.strata import read_strata, read_traffic
    from goldset_tui.io.pools import load_pool
    from goldset_tui.store.project import Project

    metric = check_metric(args.metric)  # a typo or a form for several measures: before the work
    project = Project.open(args.store)
    pool = load_pool(project.pool_path, corpus=args.corpus, scale=project.scale)
    runs = runs_from_pool(pool.frame)
    if not runs:
        raise InputError(
            project.pool_path,
            "the pool records no systems/ranks: give --run NAME=PATH and --strata",
        )
    if args.strata:
        strata = read_strata(args.strata)
    else:
        strata = pool.frame.select("query_id", "stratum").unique(
            subset="query_id", maintain_order=True
        )
        if strata.get_column("stratum").null_count() == strata.height:
            raise InputError(
                project.pool_path, "the pool has no stratum column: give --strata FILE"
            )
        strata = strata.with_columns(pl.col("stratum").fill_null("(no stratum)"))
    inputs = ReportInputs(
        qrels=store_grades_in_force(project, args.labeller),
        runs=runs,
        strata=strata,
        traffic=read_traffic(args.traffic) if args.traffic else None,
        metric=metric,
        seed=args.seed,
        samples=args.samples,
        fuse=not args.no_fusion,
        sampling_manifest=Path(args.sampling_manifest) if args.sampling_manifest else None,
    )
    return inputs, project, pool.frame


def build_context(args: argparse.Namespace):
    """Read and check every input, compute the report: the ReviewContext the screens share."""
    from goldset_tui.commands._review_sources import CONSENSUS, GradeSources, file_name
    from goldset_tui.eval.report import read_sampling_closure

    project = None
    pool_frame = None
    if args.store and not args.run:
        inputs, project, pool_frame = inputs_from_store(args)
        sources = GradeSources(inputs, project, judge_as=args.labeller)
    else:
        if not args.qrels or not args.strata:
            raise InputError(
                None, "give --qrels, --run and --strata (as for `goldset report`), or --store DIR"
            )
        inputs = load_inputs(args)
        sources = GradeSources(
            inputs, base=inputs.qrels, file_name=file_name(args.qrels, args.labeller)
        )
        if args.store:
            from goldset_tui.store.project import Project

            project = Project.open(args.store)
            sources = GradeSources(
                inputs,
                project,
                base=inputs.qrels,
                file_name=file_name(args.qrels, args.labeller),
                judge_as=args.labeller,
            )
            # The store's grades are in force from the first frame, not only after judging.
            if args.labeller and args.labeller in project.labellers():
                inputs.qrels = merge_qrels(inputs.qrels, project.qrels(args.labeller))
    if project is not None and not args.labeller:
        raise InputError(None, "--store needs --labeller: whose judgments the missing pairs become")
    topics = _topics(args, pool_frame)
    corpus = _corpus(args, pool_frame)
    sampling = read_sampling_closure(inputs.sampling_manifest) if inputs.sampling_manifest else None
    report = build(inputs)
    key = args.labeller if project is not None else None

    from goldset_tui.ui.screens.report import ReviewContext
    from goldset_tui.ui.widgets.report_judge import judge_hook

    context = ReviewContext(
        report,
        topics=topics,
        sampling_closure=sampling,
        sampling_source=str(inputs.sampling_manifest) if inputs.sampling_manifest else None,
        judge=judge_hook(project, args.labeller, topics, corpus, Path(args.pairs_out)),
        # A torn journal tail cut on open, or the like: said on the report screen too, not only
        # once judging opens (issue 12).
        store_warnings=list(dict.fromkeys(project.warnings)) if project is not None else [],
        source=sources.label(key),
        source_key=key,
        sources=sources.keys(),
        rebuild=sources.build,
        judge_as=args.labeller if project is not None else None,
        corpus=corpus,
        labelled=sources.labelled if project is not None else None,
        store=str(args.store) if args.store else None,
        out_dir=args.output,
        consensus_key=CONSENSUS if project is not None else None,
    )

    def recompute():
        # After judging: the grades in force now (the store's fresh ones), on the screen's
        # source and metric.
        if project is None:
            return None
        return sources.build(context.source_key, context.report.metric)[0]

    context.on_judged = recompute
    return context


def review_screen_for_store(store: str | Path, labeller: str, *, metric: str = "Success@10"):
    """The report screen on a store, for the home screen: runs, strata and texts from its pool."""
    from goldset_tui.ui.screens.report import ReportScreen

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--store", str(store), "--labeller", labeller, "--metric", metric])
    return ReportScreen(build_context(args))


def run(args: argparse.Namespace) -> int:
    from goldset_tui.app.terminal import require_terminal

    require_terminal(NAME)  # before the report is computed for a screen that cannot open
    from goldset_tui.ui.app import run_app
    from goldset_tui.ui.screens.report import ReportScreen

    context = build_context(args)
    return run_app(lambda: ReportScreen(context))


def _topics(args: argparse.Namespace, pool_frame: pl.DataFrame | None) -> pl.DataFrame | None:
    if args.topics:
        from goldset_tui.io.pools import read_topics

        return read_topics(args.topics).select("query_id", "query")
    if pool_frame is not None:
        return pool_frame.select("query_id", "query").unique(subset="query_id", maintain_order=True)
    return None


def _corpus(args: argparse.Namespace, pool_frame: pl.DataFrame | None) -> pl.DataFrame | None:
    frames = []
    if args.corpus:
        from goldset_tui.io.corpus import read_corpus

        frames.append(read_corpus(args.corpus).select("doc_id", "text", "title"))
    if pool_frame is not None:
        frames.append(
            pool_frame.select("doc_id", "text", "title").unique(
                subset="doc_id", maintain_order=True
            )
        )
    if not frames:
        return None
    return pl.concat(frames).unique(subset="doc_id", keep="first", maintain_order=True)
