"""`goldset eval`: trec_eval-exact measures of one or more runs, as trec_eval prints them or JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import polars as pl

from goldset_tui.errors import InputError
from goldset_tui.text import visible

NAME = "eval"
HELP = "evaluate runs against qrels or a store (trec_eval-exact; nDCG@10, AP, RR, R@100 ...)"
DESCRIPTION = """\
Evaluate one or more TREC runs with trec_eval's semantics: results ordered by score descending,
ties by document id descending; grade >= 1 is relevant (`P(rel=2)@10` raises the bar); negative
grades are pooled but unjudged; nDCG's gain is the grade (`nDCG(dcg='exp-log2')@10` for 2^g-1).

QRELS is a TREC qrels file (`qid iter docid grade`) or a goldset store folder. Each RUN is a TREC
run file (`qid Q0 docid rank score tag`), PATH or NAME=PATH (the name defaults to the file name
without .gz and extension). Gzipped files are read as they are.

The mean ("all") is over every query in the qrels with at least one document of grade >= 1; a
query missing from a run counts 0 for it. With --trec-eval-compat the mean is trec_eval's
default instead: over the queries in both the qrels and the run. NumRet, NumRel and NumRelRet are
summed, as trec_eval prints them.

Measures (ir_measures names): P@k R@k Success@k RR RR@k AP AP@k nDCG nDCG@k Rprec Bpref infAP
Judged@k NumRet NumRel NumRelRet; parameters rel=N and, for nDCG, dcg='exp-log2'.

Per-query scores are saved as Parquet (system, query_id, measure, value): under -o DIR, or in
STORE/scores/ when QRELS is a store.

examples:
  goldset eval qrels.txt bm25.run -m nDCG@10 -m AP -m RR -m R@100
  goldset eval qrels.txt bm25=runs/bm25.run.gz dense=runs/dense.run -m nDCG@10 -q
  goldset eval ~/stores/docs-pool bm25.run -m "P(rel=2)@10" --format json -o scores/
"""

DEFAULT_MEASURES = ["nDCG@10", "AP", "RR", "R@100"]


def add_qrels_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", metavar="QRELS", help="TREC qrels file, or a goldset store folder")
    parser.add_argument(
        "--labeller", metavar="NAME", help="with a store: whose judgments (needed if several)"
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_qrels_argument(parser)
    parser.add_argument("runs", metavar="RUN", nargs="+", help="run file: PATH or NAME=PATH")
    parser.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help=f"measure (repeatable; default {' '.join(DEFAULT_MEASURES)})",
    )
    parser.add_argument(
        "-q", "--per-query", action="store_true", help="also print every query's values"
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="text (trec_eval's) or json"
    )
    parser.add_argument(
        "--trec-eval-compat",
        action="store_true",
        help="average over queries in both qrels and run, as trec_eval does by default",
    )
    parser.add_argument(
        "-o", "--output", metavar="DIR", help="save per-query scores as Parquet here"
    )


def read_qrels_arg(value: str, labeller: str | None = None) -> pl.DataFrame:
    """A qrels file, or the qrels of a goldset store folder."""
    path = Path(value)
    if path.is_dir():
        from goldset_tui.store.project import Project  # lazily: only a store needs it

        qrels = Project.open(path).qrels(labeller)
        if qrels.height == 0:
            raise InputError(path, "the store holds no judgments yet")
        return qrels
    from goldset_tui.io.trec import read_qrels

    return read_qrels(path)


def output_folder(value: str | Path) -> Path:
    """The -o folder, created now: a path that cannot be a folder (an existing file, a file on
    the way, no permission) is a one-line error before anything is computed."""
    folder = Path(value)
    if folder.exists() and not folder.is_dir():
        raise InputError(folder, "exists and is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(folder, f"cannot create this folder: {exc.strerror or exc}") from None
    return folder


def run_name(path: Path) -> str:
    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    return Path(name).stem or name


def parse_run_specs(specs: list[str]) -> dict[str, Path]:
    """NAME=PATH or PATH (an existing file wins, so a path may contain '=')."""
    out: dict[str, Path] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or Path(spec).exists():
            name, path = run_name(Path(spec)), spec
        name = name.strip()  # `a =x` and `a=y` name the same run
        if not name or not path:
            raise InputError(None, f"run {spec!r}: expected PATH or NAME=PATH")
        if name in out:
            raise InputError(path, f"run name {name!r} given twice; name them with NAME=PATH")
        out[name] = Path(path)
    return out


def read_runs(specs: list[str]) -> dict[str, pl.DataFrame]:
    return read_run_paths(parse_run_specs(specs))


def read_run_paths(
    paths: dict[str, Path], queries: pl.Series | None = None
) -> dict[str, pl.DataFrame]:
    """Each run as ``read_run(path, tag=False, order=False)`` gives it; with ``queries`` (the
    qrels' queries), only their rows: the others are never scored, so they are checked, not kept."""
    from goldset_tui.io.run_scan import scan_run

    return {name: scan_run(path, queries=queries) for name, path in paths.items()}


def score_runs(
    qrels: pl.DataFrame,
    runs: dict[str, pl.DataFrame],
    measures: list[str],
    *,
    compat: bool,
    qrels_path: str | Path | None = None,
    run_paths: dict[str, Path] | None = None,
):
    """{name: (per-query long frame over the averaged queries, means)}.

    Nothing to average over is an input error, never an empty mean: the qrels have no relevant
    document at all, or (trec_eval's mean) a run shares no query with the qrels, which is almost
    always the wrong qrels file; trec_eval itself stops there ("No queries with both results and
    relevance info")."""
    from goldset_tui.eval.metrics import aggregate, evaluate, relevant_queries

    out = {}
    queries = None if compat else relevant_queries(qrels)
    if queries is not None and queries.len() == 0:
        raise InputError(
            qrels_path,
            "the qrels have no query with a relevant document (grade >= 1): nothing to average",
        )
    for name, run in runs.items():
        per_query = evaluate(qrels, run, measures, only_run_queries=compat)
        if compat and per_query.height == 0:
            run_path = (run_paths or {}).get(name)
            where = f"run {name!r}" + (f" ({run_path})" if run_path is not None else "")
            raise InputError(
                qrels_path,
                f"{where} shares no query with these qrels (--trec-eval-compat averages "
                "over the queries in both): is it the right qrels file?",
            )
        if queries is not None:
            per_query = per_query.filter(pl.col("query_id").is_in(queries.implode()))
        out[name] = (per_query, aggregate(per_query, queries))
    return out


def _value_text(measure: str, value: float) -> str:
    from goldset_tui.eval.measures import parse_measure

    return str(int(value)) if parse_measure(measure).is_count else f"{value:.4f}"


def _json_value(measure: str, value: float):
    from goldset_tui.eval.measures import parse_measure

    return int(value) if parse_measure(measure).is_count else value


def text_lines(results, measures: list[str], *, per_query: bool) -> list[str]:
    """trec_eval's layout: measure padded to 22, tab, query, tab, value; a run column first
    when there are several runs."""
    several = len(results) > 1
    lines = []
    for name, (scores, means) in results.items():
        prefix = f"{visible(name, keep_newlines=False)}\t" if several else ""
        if per_query:
            for qid, measure, value in scores.iter_rows():
                # Ids come from data: a control character must not reach the terminal.
                lines.append(
                    f"{prefix}{measure:<22}\t{visible(qid, keep_newlines=False)}\t{_value_text(measure, value)}"
                )
        for measure in measures:
            lines.append(f"{prefix}{measure:<22}\tall\t{_value_text(measure, means[measure])}")
    return lines


def json_document(results, *, per_query: bool) -> dict:
    runs = {}
    for name, (scores, means) in results.items():
        entry: dict = {"mean": {m: _json_value(m, v) for m, v in means.items()}}
        if per_query:
            table: dict[str, dict] = {}
            for qid, measure, value in scores.iter_rows():
                table.setdefault(qid, {})[measure] = _json_value(measure, value)
            entry["per_query"] = table
        runs[name] = entry
    return {"runs": runs}


def run(args: argparse.Namespace) -> int:
    from goldset_tui.eval.measures import parse_measures
    from goldset_tui.eval.scores import SCORES_DIR, save_scores

    # Check the cheap things (measure names) before reading large files.
    measures = [str(m) for m in parse_measures(args.measures or DEFAULT_MEASURES)]
    qrels = read_qrels_arg(args.qrels, args.labeller)
    if args.output:
        output_folder(args.output)
    run_paths = parse_run_specs(args.runs)
    runs = read_run_paths(run_paths, queries=qrels.get_column("query_id").unique())
    results = score_runs(
        qrels,
        runs,
        measures,
        compat=args.trec_eval_compat,
        qrels_path=args.qrels,
        run_paths=run_paths,
    )
    if args.format == "json":
        print(json.dumps(json_document(results, per_query=args.per_query), indent=2))
    else:
        sys.stdout.write("\n".join(text_lines(results, measures, per_query=args.per_query)) + "\n")
    folder = (
        Path(args.output)
        if args.output
        else (Path(args.qrels) / SCORES_DIR if Path(args.qrels).is_dir() else None)
    )
    if folder is not None:
        for name, (scores, _) in results.items():
            try:
                written = save_scores(scores, name, folder)
            except OSError as exc:
                raise InputError(
                    folder, f"cannot write the scores: {exc.strerror or exc}"
                ) from None
            print(f"per-query scores: {written}", file=sys.stderr)
    return 0
