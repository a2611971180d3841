"""`goldset eval`: trec_eval-exact measures of one or more runs, as trec_eval prints them or JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from goldset_tui.app.runs import load_eval_inputs, open_runs
from goldset_tui.app.scoring import score_runs as score_runs  # re-exported
from goldset_tui.app.scoring import warn_query_mismatch as warn_query_mismatch
from goldset_tui.errors import InputError

if TYPE_CHECKING:  # imported lazily: `goldset --help` and a small evaluation never load Polars
    from goldset_tui.eval.measures import Measure
    from goldset_tui.io.sources import Source
    from goldset_tui.model import GradeScale

NAME = "eval"
HELP = "evaluate runs against qrels or a store (trec_eval-exact; nDCG@10, AP, RR, R@100 ...)"
_DESCRIPTION = """\
Evaluate one or more TREC runs with trec_eval's semantics: results ordered by score descending,
ties by document id descending; grade >= 1 is relevant (`P(rel=2)@10` raises the bar); negative
grades are pooled but unjudged; nDCG's gain is the grade (`nDCG(dcg='exp-log2')@10` for 2^g-1).

QRELS is a TREC qrels file (`qid iter docid grade`) or a goldset store folder. Each RUN is a TREC
run file (`qid Q0 docid rank score tag`), PATH or NAME=PATH; `-` is standard input, and a pipe
such as <(zcat run.gz) works. Paths are literal (`sys[1].run` is that file). The name defaults
to the file name without .gz and extension, or to the run's tag (trec_eval's runid) when the
file name says nothing more (`input.uic0301.gz` is `uic0301`; standard input, a pipe).
Gzipped files are read as they are.

The mean ("all") is over every query in the qrels with at least one relevant document; a query
missing from a run counts 0 for it. -c (trec_eval's -c) averages over every query in the qrels,
a judged query without a relevant document too. --trec-eval-compat averages as trec_eval does
without -c: over the queries in both the qrels and the run; it also prints trec_eval's names in
trec_eval's order and, without -m, trec_eval's default measures (runid, num_q, num_ret, num_rel,
num_rel_ret, map ... P_1000); with -m, only the measures given, as trec_eval -m does. Counts
(NumQ, NumRet, NumRel, NumRelRet) are summed. A run sharing no query with the qrels is an error;
queries in one and not the other are a warning. --trec-eval-compat keeps stderr as quiet as
trec_eval's (errors, the measures goldset lacks, and what goldset's own options -o, --store and
--release say); --verbose adds goldset's notes, warnings and the unjudged advice, which every
other mode prints.

{measures}
trec_eval's names (map, ndcg_cut_10, P_10, ...) and ranx's (ndcg@10, mrr@10, ...) are aliases,
and so are trec_eval's -m forms: a family alone (recall, ndcg_cut, map_cut, success,
iprec_at_recall; P under --trec-eval-compat) is its default cut-offs, P.5,10 a list of them,
official and all_trec its groups (what goldset lacks is named on stderr), runid the run's tag.

Per-query scores are saved as Parquet (system, query_id, measure, value): under -o DIR, or in
STORE/scores/ when QRELS is a store.

examples:
  goldset eval sample_data/judgments/alice.qrels sample_data/runs/bm25.run -m nDCG@10 -m AP -m RR -m R@100
  goldset eval qrels.txt bm25=runs/bm25.run.gz dense=runs/dense.run -m nDCG@10 -q
  goldset eval ~/stores/docs-pool bm25.run -m "P(rel=2)@10" --format json -o scores/
  goldset eval --trec-eval-compat -c -q qrels.txt input.uic0301.gz     # = trec_eval -c -q
  zcat run.gz | goldset eval qrels.txt - -m map -m ndcg_cut_10
  goldset eval --trec-eval-compat qrels.txt run.txt -m runid -m P.5,10 -m ndcg_cut
"""


def __getattr__(name: str) -> str:
    # DESCRIPTION is made when --help is shown, from the measure registry: a measure
    # registered after this module was imported is listed too.
    if name == "DESCRIPTION":
        return _description()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _description() -> str:
    import textwrap

    from goldset_tui import measures

    listed = (
        f"Measures (ir_measures names): {' '.join(measures.usage())}; parameters rel=N, nDCG's "
        "dcg='exp-log2', SetF's beta, RBP's and Compat's p, alpha_nDCG's alpha (it reads QRELS "
        "as diversity qrels: query subtopic doc grade)."
    )
    wrapped = textwrap.fill(listed, width=96, break_long_words=False, break_on_hyphens=False)
    return _DESCRIPTION.replace("{measures}", wrapped)


DEFAULT_MEASURES = ["nDCG@10", "AP", "RR", "R@100"]
# --trec-eval-compat without -m: what trec_eval prints without -m (runid, num_q ... P_1000).
TREC_EVAL_DEFAULT = "official"


def add_qrels_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", metavar="QRELS", help="TREC qrels file, or a goldset store folder")
    parser.add_argument(
        "--labeller", metavar="NAME", help="with a store: whose judgments (needed if several)"
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_qrels_argument(parser)
    parser.add_argument(
        "runs", metavar="RUN", nargs="+", help="run file: PATH or NAME=PATH (- is standard input)"
    )
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
        help="as trec_eval: average over queries in both qrels and run (unless -c), trec_eval's "
        "names and order, its default measures (runid, num_* ...) without -m; goldset's notes, "
        "warnings and advice kept off stderr (unless --verbose)",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="with --trec-eval-compat: also print goldset's notes, query-set warnings and "
        "unjudged advice on stderr (always printed without --trec-eval-compat)",
    )
    parser.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="trec_eval -c: average over every query in the qrels (missing from a run: 0)",
    )
    parser.add_argument(
        "-J",
        "--judged-only",
        action="store_true",
        help="trec_eval -J: drop documents not judged (absent or negative grade) before ranking",
    )
    parser.add_argument(
        "-M",
        "--max-docs",
        type=int,
        metavar="N",
        help="trec_eval -M: only each query's top N documents",
    )
    parser.add_argument(
        "-l",
        "--rel-level",
        type=int,
        metavar="N",
        help="trec_eval -l: grade >= N is relevant, for every measure without its own rel=",
    )
    parser.add_argument(
        "-o", "--output", metavar="DIR", help="save per-query scores as Parquet here"
    )
    from goldset_tui.commands._history_hooks import add_release_arguments

    add_release_arguments(parser)  # --store DIR --release NAME: the golden set's history


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


def averaging_mode(args: argparse.Namespace) -> str:
    """``complete`` (-c), ``both`` (--trec-eval-compat) or goldset's ``relevant``."""
    if args.complete:
        return "complete"
    return "both" if args.trec_eval_compat else "relevant"


def quiet(args: argparse.Namespace) -> bool:
    """Whether goldset's own remarks stay off stderr: under --trec-eval-compat without
    --verbose. A script that swaps goldset in for trec_eval may take any line on stderr for a
    failure, and trec_eval says nothing there when it succeeds. What stays: errors, and the
    warning that goldset lacks some of the measures asked for (the output is not trec_eval's
    then); and the lines of goldset's own options (-o, --store/--release), which no trec_eval
    command line has."""
    return bool(args.trec_eval_compat and not getattr(args, "verbose", False))


def chosen_measures(
    args: argparse.Namespace, *, notes: bool = True
) -> tuple[list[Measure], bool, list[str]]:
    """The -m measures (or the defaults) at the -l level, whether the runid line is asked for, and
    the lines to say on stderr once the inputs have been read. trec_eval's forms (`P`, `P.5,10`,
    `official`, `all_trec`, `runid`) are expanded (``eval.trec_forms``); each alias or form read
    is noted (unless not ``notes``), and the measures of a trec_eval group that goldset lacks
    are named in one warning. The lines wait: a command that then fails on its input says one
    line, the error."""
    from goldset_tui.eval.measures import parse_measure, parse_measures, with_rel_level
    from goldset_tui.eval.trec_forms import GROUPS, expand

    # Under --trec-eval-compat, -m lists exactly what is printed, as trec_eval's -m does
    # (its default "official" set starts with runid and the counts).
    given = args.measures or ([TREC_EVAL_DEFAULT] if args.trec_eval_compat else DEFAULT_MEASURES)
    forms = expand(given, compat=args.trec_eval_compat)
    measures = parse_measures(forms.texts)
    said = []
    if forms.lacking:
        said.append(
            f"goldset: warning: {len(forms.lacking)} of trec_eval's measures are not in goldset "
            f"and are left out: {', '.join(forms.lacking)}"
        )
    for form, members in forms.read_as.items() if notes else ():
        if form not in GROUPS:  # a group's members are many: its warning says what matters
            shown = ", ".join(str(parse_measure(t)) for t in members)
            said.append(f"goldset: note: measure {form!r} read as {shown}")
    grouped = {t for members in forms.read_as.values() for t in members}
    for m in measures if notes else ():
        if m.alias and m.alias not in grouped:
            said.append(f"goldset: note: measure {m.alias!r} read as {str(m)!r}")
    level = args.rel_level or 1
    chosen = list({str(x): x for x in (with_rel_level(m, level) for m in measures)}.values())
    return chosen, forms.runid, said


def scale_misread(store: Path, level: int) -> tuple[GradeScale, str] | None:
    """A store's scale and why relevance at grade >= ``level`` misreads it (a 1-5 scale: every
    judged document relevant); None for qrels that are not a store, or a scale read right."""
    if not (store / "manifest.toml").is_file():
        return None
    from goldset_tui.store.project import Project

    scale = Project.open(store).scale
    why = scale.all_relevant_at(level)
    return None if why is None else (scale, why)


def warn_scale(store: Path, level: int) -> None:
    """One warning line when the store's scale starts at or above the relevance level."""
    if (found := scale_misread(store, level)) is not None:
        scale, why = found
        advice = f"; pass -l {scale.min + 1} if grade {scale.min} means not relevant"
        print(f"goldset: warning: {store}: {why}{advice}", file=sys.stderr)


def check_modes(args: argparse.Namespace) -> None:
    if args.rel_level is not None and args.rel_level < 1:
        raise InputError(None, "-l/--rel-level must be at least 1 (grade >= N is relevant)")
    if args.max_docs is not None and args.max_docs < 1:
        raise InputError(None, "-M/--max-docs must be at least 1")


def run(args: argparse.Namespace) -> int:
    from goldset_tui.commands._eval_output import json_document, text_lines

    # Check the cheap things (options, measure names) before reading large files.
    check_modes(args)
    from goldset_tui.commands import _history_hooks

    _history_hooks.check(args)  # a wrong --store/--release is refused before the work
    for store in {args.qrels, getattr(args, "store", None)} - {None}:
        warn_scale(Path(store), args.rel_level or 1)
    measures, runid, said = chosen_measures(args, notes=not quiet(args))
    if args.qrels == "-" and "-" in args.runs:
        raise InputError(None, "standard input ('-') can be read only once")
    subtopics = any(m.needs_subtopics for m in measures)
    if Path(args.qrels).is_dir() or subtopics:
        qrels_input: str | Source = args.qrels
    else:
        from goldset_tui.io.sources import open_source

        qrels_input = open_source(args.qrels)
    if args.output:
        output_folder(args.output)
    inputs = open_runs(args.runs)
    # Recording into a store (--store/--release) needs every run whole, as read_run reads it.
    whole = getattr(args, "store", None) is not None
    qrels, runs = load_eval_inputs(qrels_input, inputs, measures, args.labeller, whole=whole)
    for line in said:
        print(line, file=sys.stderr)
    results = score_runs(
        qrels,
        runs,
        measures,
        mode=averaging_mode(args),
        level=args.rel_level or 1,
        max_docs=args.max_docs,
        judged_only=args.judged_only,
        qrels_path=args.qrels,
        run_paths={name: r.source.path for name, r in inputs.items()},
        tags={name: r.tag for name, r in inputs.items()},
        trec_eval_quirks=args.trec_eval_compat,
        warn=not quiet(args),
    )
    if args.format == "json":
        doc = json_document(results, measures, per_query=args.per_query)
        print(json.dumps(doc, indent=2))
    else:
        lines = text_lines(
            results,
            measures,
            per_query=args.per_query,
            compat=args.trec_eval_compat,
            level=args.rel_level or 1,
            runid=runid,
        )
        sys.stdout.write("\n".join(lines) + "\n")
    folder = (
        Path(args.output)
        if args.output
        else (Path(args.qrels) / "scores" if Path(args.qrels).is_dir() else None)
    )
    if folder is not None:
        from goldset_tui.eval.scores import file_name, save_scores

        for name, result in results.items():
            try:
                written = save_scores(result.frame(), name, folder)
            except OSError as exc:
                # The scores come before the history's records: with --release, say that
                # nothing of the release was recorded, as a failed recording itself does.
                failed = f"cannot write the scores: {exc.strerror or exc}"
                if _history_hooks.check(args) is not None:
                    from goldset_tui.history.recording import not_recorded

                    failed += f": {not_recorded(args.release, 'the scores')}"
                raise InputError(folder / file_name(name), failed) from None
            print(f"per-query scores: {written}", file=sys.stderr)
    _history_hooks.after_eval(args, qrels, runs, results, measures, advice=not quiet(args))
    return 0
