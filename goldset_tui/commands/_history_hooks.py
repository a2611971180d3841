"""The small hooks `goldset report` and `goldset eval` call for the golden set's history
(docs/history.md): ``--store DIR --release NAME`` records the run; the unjudged-fraction advice
names the exact `goldset pool --extend` command. The work is in ``app/releases.py``; here, the
arguments mapped onto it and its lines printed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from goldset_tui.text import visible

if TYPE_CHECKING:
    import polars as pl

    from goldset_tui.app.report import ReportInputs
    from goldset_tui.app.scoring import AnyRun, RunResult
    from goldset_tui.eval.measures import Measure
    from goldset_tui.history.records import Record
    from goldset_tui.io.small_trec import Qrels
    from goldset_tui.report.model import Report


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
    from goldset_tui.app.releases import release_store

    return release_store(getattr(args, "store", None), getattr(args, "release", None))


def note_strata_change(args: argparse.Namespace, report: Report) -> None:
    """Before the report is written: whether the store (--store, or a store given as --qrels)
    last recorded a release under other strata, kept on the report for its JSON, Markdown and
    stderr."""
    store = check(args) or (Path(args.qrels) if Path(args.qrels).is_dir() else None)
    if store is not None:  # imported only here: a report without a store does not pay for it
        from goldset_tui.app.drift import strata_change

        report.strata_changed = strata_change(store, report.strata_frame)


def after_report(
    args: argparse.Namespace,
    inputs: ReportInputs,
    report: Report,
    pending: list[list[Record]] | None = None,
) -> None:
    """Print the advice and the case status, and record the report's runs (not the fused one):
    at once, or, given ``pending``, added to it for :func:`record_pending` to record every
    measure's report as one release."""
    from goldset_tui.app.releases import (
        record_report,
        report_advice,
        report_cases,
        report_records,
    )
    from goldset_tui.specs import parse_named_paths

    store = check(args)
    paths = parse_named_paths(args.run, "--run", path_alone=True)
    store_dir = store or (Path(args.qrels) if Path(args.qrels).is_dir() else None)
    _say(report_advice(report, paths, store_dir))
    if report.strata_changed is not None:  # set by note_strata_change: said first
        _say([report.strata_changed["note"]])
    if store is None:
        if store_dir is not None:  # the store's named cases, in this unrecorded report
            _say(report_cases(store_dir, report))
        return
    if pending is None:
        _say(record_report(store, args.release, inputs.qrels, report, inputs.traffic))
    else:
        pending.append(report_records(store, args.release, inputs.qrels, report, inputs.traffic))


def record_pending(args: argparse.Namespace, pending: list[list[Record]]) -> None:
    """Record what :func:`after_report` gathered: every measure, or none of them."""
    from goldset_tui.app.releases import commit_release

    store = check(args)
    if store is not None and pending:
        _say(commit_release(store, args.release, pending))


def after_eval(
    args: argparse.Namespace,
    qrels: pl.DataFrame | Qrels,
    runs: dict[str, AnyRun],
    results: dict[str, RunResult],
    measures: list[Measure],
    *,
    advice: bool = True,
) -> None:
    """Per run, the unjudged advice at the evaluated depth (unless not ``advice``); with
    --release, one record per measure and run."""
    from goldset_tui.app.releases import eval_advice, record_eval

    store = check(args)
    if store is None and not advice:
        return  # nothing to record, nothing to say: not even worth computing the shares
    store_dir = store or (Path(args.qrels) if Path(args.qrels).is_dir() else None)
    paths = {name: spec_path(spec) for name, spec in zip(results, args.runs, strict=False)}
    said = eval_advice(
        qrels,
        runs,
        results,
        measures,
        max_docs=args.max_docs,
        run_paths=paths,
        store_dir=store_dir,
        recording=store is not None,
    )
    if said is None:
        return  # diversity qrels: neither advice nor history (grades per subtopic)
    if advice:
        _say(said)
    if store is not None and not isinstance(qrels, dict):  # recording reads the runs whole
        _say(
            record_eval(store, args.release, qrels, runs, results, measures, max_docs=args.max_docs)
        )


def spec_path(spec: str) -> str:
    from goldset_tui.specs import split_named_path

    return split_named_path(spec, "run", path_alone=True)[1]
