"""The small hooks `goldset report`, `goldset eval` and `goldset pool` call for the golden set's
history (issue 14): ``--store DIR --release NAME`` records the run; the unjudged-fraction advice
names the exact `goldset pool --extend` command. Kept here so the commands change by a few lines.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from goldset_tui.eval.defaults import DEFAULT_K, UNJUDGED_WARNING
from goldset_tui.text import visible


def add_release_arguments(parser: argparse.ArgumentParser, *, store: bool = True) -> None:
    if store:
        parser.add_argument(
            "--store",
            metavar="DIR",
            help="with --release: the goldset store whose history records this run",
        )
    parser.add_argument(
        "--release",
        metavar="NAME",
        help="record this run in the store's history as release NAME (see `goldset history`)",
    )


def _say(lines: list[str]) -> None:
    for line in lines:
        print(f"goldset: {visible(line, keep_newlines=False)}", file=sys.stderr)


def check(args: argparse.Namespace) -> Path | None:
    if getattr(args, "store", None) is None and getattr(args, "release", None) is None:
        return None  # nothing to record: a plain `goldset eval` imports neither store nor Polars
    from goldset_tui.history.recording import check_release_args

    return check_release_args(getattr(args, "store", None), getattr(args, "release", None))


def after_report(args: argparse.Namespace, inputs, report) -> None:  # noqa: ANN001
    """Record the report's runs (not the fused one) and print the advice and the case status."""
    import polars as pl

    from goldset_tui.history.advice import unjudged_advice
    from goldset_tui.history.recording import (
        case_lines,
        record_systems,
        store_pool,
    )
    from goldset_tui.specs import parse_named_paths

    store = check(args)
    paths = parse_named_paths(args.run, "--run", path_alone=True)
    store_dir = store or (Path(args.qrels) if Path(args.qrels).is_dir() else None)
    unjudged = {name: 1.0 - share for name, share in report.judged.items() if name in paths}
    _say(unjudged_advice(unjudged, paths, report.k, pool=store_pool(store_dir), store=store_dir))
    if store is None:
        if store_dir is not None:  # the store's named cases, in this unrecorded report
            _say(
                case_lines(
                    store_dir,
                    measure=report.metric,
                    scores=report.scores,
                    systems=report.systems,
                    label="this report",
                    binary=report.binary,
                )
            )
        return
    _say(
        record_systems(
            store,
            args.release,
            qrels=inputs.qrels,
            measure=report.metric,
            scores=report.scores,
            systems=report.systems,
            k=report.k,
            binary=report.binary,
            strata=report.strata_frame,
            # The report's top k also covers golden-set queries out of the table (their holes);
            # a release records the evaluated queries only.
            topk=report.topk.filter(
                pl.col("query_id").is_in(report.scores.get_column("query_id").unique().implode())
            )
            if report.topk is not None
            else None,
        )
    )


def after_eval(args: argparse.Namespace, qrels, runs, results, measures) -> None:  # noqa: ANN001
    """Per run, the unjudged advice at the evaluated depth; with --release, one record per
    measure and run. The runs come as `goldset eval` read them: whole frames, lean runs or the
    small path's plain dicts (whole frames whenever --store is given)."""
    from goldset_tui.commands._eval_scoring import unjudged_shares

    store = check(args)
    qrels_store = Path(args.qrels) if Path(args.qrels).is_dir() else None
    store_dir = store or qrels_store
    cutoffs = [m.cutoff for m in measures if m.cutoff]
    depth = args.max_docs or (max(cutoffs) if cutoffs else DEFAULT_K)
    if not isinstance(qrels, dict) and "subtopic" in qrels.columns:
        return  # diversity qrels: neither advice nor history (grades per subtopic)
    unjudged = unjudged_shares(qrels, runs, results, depth)
    if store is None and not any(share > UNJUDGED_WARNING for share in unjudged.values()):
        return  # nothing to say, nothing to record
    import polars as pl

    from goldset_tui.history.advice import unjudged_advice
    from goldset_tui.report.compute import topk_frame

    paths = {name: spec_path(spec) for name, spec in zip(results, args.runs, strict=False)}
    pool = None
    if store_dir is not None:
        from goldset_tui.history.recording import store_pool

        pool = store_pool(store_dir)
    _say(unjudged_advice(unjudged, paths, depth, pool=pool, store=store_dir))
    if store is None:
        return
    from goldset_tui.history.recording import record_systems, store_strata

    ranked = {name: _ranked(run, max(depth, DEFAULT_K)) for name, run in runs.items()}
    strata = store_strata(store)
    for m in measures:
        k = m.cutoff or DEFAULT_K
        frames, tops = [], []
        for name, result in results.items():
            per_query = result.frame()
            frames.append(
                per_query.filter(pl.col("measure") == str(m)).select(
                    pl.lit(name).alias("system"), "query_id", "value"
                )
            )
            queries = per_query.get_column("query_id").unique()
            tops.append(topk_frame(qrels, {name: ranked[name]}, k, queries))
        _say(
            record_systems(
                store,
                args.release,
                qrels=qrels,
                measure=str(m),
                scores=pl.concat(frames),
                systems=list(results),
                k=k,
                strata=strata,
                topk=pl.concat(tops),
            )
        )


def _ranked(run, depth: int):  # noqa: ANN001, ANN202 - a run frame in, its top ``depth`` out
    """The run with trec_eval's ranks (score descending, ties by doc id descending): read_run
    gives them already (its ``rank`` is computed, never the file's); anything else is ranked
    here, top ``depth`` only."""
    import polars as pl

    if "rank" in run.columns:
        return run.filter(pl.col("rank") <= depth)  # one cheap pass; the rest sees top k only
    from goldset_tui.pooling.build import top_k

    return top_k(run, depth)


def spec_path(spec: str) -> str:
    from goldset_tui.specs import split_named_path

    return split_named_path(spec, "run", path_alone=True)[1]
