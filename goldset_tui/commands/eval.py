"""`goldset eval`: trec_eval-exact measures of one or more runs, as trec_eval prints them or JSON."""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from goldset_tui.commands._eval_scoring import score_runs as score_runs  # re-exported
from goldset_tui.commands._eval_scoring import warn_query_mismatch as warn_query_mismatch
from goldset_tui.errors import InputError
from goldset_tui.specs import given_twice, name_from_path, parse_named_paths, split_named_path

if TYPE_CHECKING:  # imported lazily: `goldset --help` and a small evaluation never load Polars
    import polars as pl

    from goldset_tui.eval.measures import Measure
    from goldset_tui.io.small_trec import Qrels, Run
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
queries in one and not the other are a warning.

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
# A file name this plain says nothing about the system: the run's tag names it instead.
PLAIN_FILE_NAMES = frozenset(
    {"input", "run", "runs", "result", "results", "output", "out", "submission", "stdin", "-"}
)


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
        "names and order, its default measures (runid, num_* ...) without -m",
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


def read_qrels_arg(
    value: str | Source, labeller: str | None = None, *, subtopics: bool = False
) -> pl.DataFrame:
    """A qrels file (or one already opened), or the qrels of a goldset store folder.
    ``subtopics``: read the second column as the subtopic (diversity qrels, for alpha_nDCG)."""
    path = Path(value) if isinstance(value, str) else Path(value.path)
    if isinstance(value, str) and path.is_dir():
        if subtopics:
            raise InputError(path, "alpha_nDCG needs diversity qrels (query subtopic doc grade)")
        from goldset_tui.commands._store_qrels import qrels_without_labeller
        from goldset_tui.store.project import Project  # lazily: only a store needs it

        project = Project.open(path)
        qrels = project.qrels(labeller) if labeller else qrels_without_labeller(project)
        if qrels.height == 0:
            raise InputError(path, "the store holds no judgments yet")
        return qrels
    from goldset_tui.io.trec import read_qrels, read_subtopic_qrels

    return read_subtopic_qrels(value) if subtopics else read_qrels(value)


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


run_name = name_from_path  # the name this module gave it before goldset_tui.specs


def default_run_name(path: str, tag: str | None, *, stream: bool) -> str:
    """The file name without .gz and extension, or the run's tag (trec_eval's runid) when the
    file name says nothing more: standard input or a pipe, a plain name (``results.test``,
    ``run.txt``), or a name that holds the tag (``input.uic0301.gz`` is ``uic0301``)."""
    by_file = run_name(Path(path)) if path != "-" else "stdin"
    if not tag:
        return by_file
    plain = by_file.lower() in PLAIN_FILE_NAMES or by_file.isdigit()  # /dev/fd/63
    if stream or plain or tag in Path(path).name.split("."):
        return tag
    return by_file


def split_run_spec(spec: str) -> tuple[str | None, str]:
    """(NAME, PATH) from NAME=PATH, or (None, PATH): an existing file wins, so a path may
    contain '='."""
    return split_named_path(spec, "run", path_alone=True)  # rules: goldset_tui.specs


def parse_run_specs(specs: list[str]) -> dict[str, Path]:
    """NAME=PATH or PATH (the rules: goldset_tui.specs)."""
    return parse_named_paths(specs, "run", path_alone=True)


class RunInput:
    """A run on the command line: its name, its opened input and its tag (runid)."""

    __slots__ = ("name", "source", "tag")  # a plain class: `dataclasses` costs start-up time

    def __init__(self, name: str, source: Source, tag: str | None) -> None:
        self.name, self.source, self.tag = name, source, tag


def open_runs(specs: list[str]) -> dict[str, RunInput]:
    """Each spec opened (standard input and pipes are read now), named: NAME=PATH, else
    :func:`default_run_name`. Two runs with one name are an error."""
    from goldset_tui.io.sources import STDIN, open_source, run_tag

    if sum(1 for spec in specs if spec == STDIN) > 1:
        raise InputError(None, "standard input ('-') can be read only once")
    out: dict[str, RunInput] = {}
    for spec in specs:
        given, path = split_run_spec(spec)
        source = open_source(path)
        tag = run_tag(source)
        stream = path == STDIN or not Path(path).is_file()  # a pipe's name says nothing
        name = given if given is not None else default_run_name(path, tag, stream=stream)
        if name in out:
            raise given_twice(name, path, "run")
        out[name] = RunInput(name, source, tag)
    return out


def read_runs(specs: list[str]) -> dict[str, pl.DataFrame]:
    return read_run_paths({name: r.source for name, r in open_runs(specs).items()})


def read_run_paths(paths: Mapping[str, Path | Source]) -> dict[str, pl.DataFrame]:
    from goldset_tui.io.trec import read_run

    return {name: read_run(path, tag=False, order=False) for name, path in paths.items()}


def averaging_mode(args: argparse.Namespace) -> str:
    """``complete`` (-c), ``both`` (--trec-eval-compat) or goldset's ``relevant``."""
    if args.complete:
        return "complete"
    return "both" if args.trec_eval_compat else "relevant"


def read_inputs(
    qrels: str | Source,
    inputs: Mapping[str, RunInput],
    measures: list[Measure],
    labeller=None,
    *,
    whole: bool = False,
) -> tuple[pl.DataFrame | Qrels, dict[str, pl.DataFrame] | dict[str, Run]]:
    """The qrels and the runs, read in plain Python when they are small and every measure has
    a plain kernel (``eval.small``), else (or on any doubt about a file) by Polars."""
    from goldset_tui.io.sources import Source

    if isinstance(qrels, Source) and not whole:
        from goldset_tui.eval.small import fits
        from goldset_tui.io.small_trec import Doubt, read_qrels_small, read_run_small

        total = qrels.size() + sum(r.source.size() for r in inputs.values())
        if fits(total, measures):
            # Hundreds of thousands of small objects and not one reference cycle among them:
            # the cyclic collector would only walk them again and again (a third of the time).
            gc.disable()
            try:
                # The runs first: a doubt (a shuffled run over 4 MB) most often comes from them.
                plain_runs = {name: read_run_small(r.source) for name, r in inputs.items()}
                return read_qrels_small(qrels), plain_runs
            except Doubt:
                pass  # Polars reads them, and names the bad line if there is one
            finally:
                gc.enable()
    frame = read_qrels_arg(qrels, labeller, subtopics=any(m.needs_subtopics for m in measures))
    from goldset_tui.progress import working  # its imports (shutil, bz2, lzma) take time

    with working("reading the runs"):
        if (
            whole
            or "subtopic" in frame.columns
            or any(m.entry.frame is not None for m in measures)  # Compat: the whole run
        ):
            return frame, read_run_paths({name: r.source for name, r in inputs.items()})
        return frame, {name: read_lean(r.source, frame) for name, r in inputs.items()}


def read_lean(source: Source, qrels: pl.DataFrame):  # noqa: ANN201 - LeanRun | pl.DataFrame
    """The run as the measures need it: its judged rows ranked and its counts (``io.run_lean``,
    a fraction of the memory), or the whole run when the lean reader has any doubt."""
    from goldset_tui.io.run_lean import Doubt, read_run_lean
    from goldset_tui.io.trec import read_run

    try:
        return read_run_lean(source, qrels)
    except Doubt:
        return read_run(source, tag=False, order=False)  # the answer, or the bad line named


def chosen_measures(args: argparse.Namespace) -> tuple[list[Measure], bool, list[str]]:
    """The -m measures (or the defaults) at the -l level, whether the runid line is asked for, and
    the lines to say on stderr once the inputs have been read. trec_eval's forms (`P`, `P.5,10`,
    `official`, `all_trec`, `runid`) are expanded (``eval.trec_forms``); each alias or form read
    is noted, and the measures of a trec_eval group that goldset lacks are named in one warning.
    The lines wait: a command that then fails on its input says one line, the error."""
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
    for form, members in forms.read_as.items():
        if form not in GROUPS:  # a group's members are many: its warning says what matters
            shown = ", ".join(str(parse_measure(t)) for t in members)
            said.append(f"goldset: note: measure {form!r} read as {shown}")
    grouped = {t for members in forms.read_as.values() for t in members}
    for m in measures:
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
    measures, runid, said = chosen_measures(args)
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
    qrels, runs = read_inputs(qrels_input, inputs, measures, args.labeller, whole=whole)
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
        from goldset_tui.eval.scores import save_scores

        for name, result in results.items():
            try:
                written = save_scores(result.frame(), name, folder)
            except OSError as exc:
                raise InputError(
                    folder, f"cannot write the scores: {exc.strerror or exc}"
                ) from None
            print(f"per-query scores: {written}", file=sys.stderr)
    _history_hooks.after_eval(args, qrels, runs, results, measures)
    return 0
