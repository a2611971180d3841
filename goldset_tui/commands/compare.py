"""`goldset compare`: two runs on the same queries, paired per query.

Why paired: docs/background.md#paired-comparison."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from goldset_tui.app.compare import compare_runs
from goldset_tui.app.qrels import load_qrels
from goldset_tui.app.runs import open_runs, read_run_paths
from goldset_tui.commands.eval import add_qrels_argument, warn_query_mismatch, warn_scale
from goldset_tui.errors import InputError
from goldset_tui.eval.defaults import COMPARE_SAMPLES
from goldset_tui.pvalue import p_value_text
from goldset_tui.text import visible

if TYPE_CHECKING:
    from goldset_tui.eval.measures import Measure

# Short names of ``PairedResult.ci_method`` for the text output (docs/eval.md says more).
_METHOD_WORDS = {
    "difference-score-t": "score interval on the differences",
    "paired-score-t": "score interval for paired rates",
    "student-t": "Student t on the differences",
}

NAME = "compare"
HELP = "compare two runs query by query: mean difference, its interval, randomization test"
DESCRIPTION = """\
Compare RUN_A with RUN_B on each measure given, pairing the queries: the mean difference A - B, a 95%
interval for it (a score interval on the per-query differences, which stays inside [-1, 1] and
keeps a width when every query moves the same way or every query ties), the p-value of a seeded
paired randomization test (signs of the per-query differences flipped at random; two-sided),
and the queries A wins, loses and ties. For a measure that is 0 or 1 per query by
its definition (Success@k, P@1, R@k with one relevant document a query) it adds the
discordant queries (only A / only B succeed) and McNemar's exact p, and the interval is Tango's
score interval for paired rates, which covers where only a few queries flip.

The queries are those of `goldset eval`: every query in the qrels with a document of grade >= 1
(>= N with -l N, as eval -l: on a 1-5 scale whose 1 means not relevant, give -l 2), a query
missing from a run counting 0. Same seed, same numbers.

-m is repeatable, and takes trec_eval's forms: a list (P.5,10) or a family alone (ndcg_cut: its
cut-offs 5 ... 1000) stands for several measures. Each is compared on its own, with the same
seed, in blocks separated by a blank line (JSON: a list of the objects); each p-value is for its
measure alone, not corrected for comparing several. runid and the groups (official, all_trec)
are refused: the run's tag and counts are not per-query scores.

examples:
  goldset compare sample_data/judgments/alice.qrels sample_data/runs/bm25.run sample_data/runs/minilm.run -m nDCG@10
  goldset compare qrels.txt bm25.run dense.run -m nDCG@10
  goldset compare ~/stores/docs-pool a=bm25.run b=dense.run -m Success@10 --samples 20000 --seed 7
  goldset compare qrels.txt bm25.run dense.run -m P.5,10 -m AP --format json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_qrels_argument(parser)
    parser.add_argument("run_a", metavar="RUN_A", help="PATH or NAME=PATH")
    parser.add_argument("run_b", metavar="RUN_B", help="PATH or NAME=PATH")
    parser.add_argument(
        "-m",
        "--measure",
        action="append",
        metavar="MEASURE",
        help="a measure to compare on; repeatable, and a list (P.5,10) compares each (default nDCG@10)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="N",
        help="seed of the randomization test (default 0)",
    )
    parser.add_argument(
        "--samples",
        type=int,
        default=COMPARE_SAMPLES,
        metavar="N",
        help="randomization test samples (default %(default)s)",
    )
    parser.add_argument(
        "-l",
        "--rel-level",
        type=int,
        metavar="N",
        help="as goldset eval -l: grade >= N is relevant (e.g. 2 on a 1-5 scale whose 1 means "
        "not relevant); the mean is over the queries with such a grade",
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="text (default) or json"
    )


def check_query_sets(
    qrels: pl.DataFrame,
    runs: dict[str, pl.DataFrame],
    qrels_path: str,
    run_paths: dict[str, str | Path],
) -> None:
    """As `goldset eval`: a run sharing no query with the qrels is an error, a partial mismatch
    a warning line."""
    from goldset_tui.eval.querysets import query_sets

    for name, frame in runs.items():
        run_queries = frame.get_column("query_id").unique()
        sets = query_sets(qrels, run_queries)
        warn_query_mismatch(
            name,
            sets,
            run_queries.len(),
            mode="relevant",
            qrels_path=qrels_path,
            run_path=run_paths[name],
        )


def chosen_measures(given: list[str]) -> list[Measure]:
    """The measures -m names, trec_eval's forms expanded (``P.5,10``: P@5 and P@10; a family
    alone: its default cut-offs), each once. The run's tag, a group (it holds the tag and
    counts), counts and GMAP (a geometric mean) are refused: compare needs a per-query score
    whose mean is arithmetic."""
    from goldset_tui.eval.measures import arithmetic_measure, parse_measures
    from goldset_tui.eval.trec_forms import GROUPS, RUNID, expand

    for text in given:
        if text.strip() in GROUPS:
            raise InputError(
                None,
                f"measure {text.strip()!r}: a group of trec_eval's measures, with the run's tag "
                "and counts compare cannot compare; name the measures (e.g. -m map -m P.5,10)",
            )
        if text.strip() == RUNID:
            raise InputError(
                None,
                "measure 'runid': the run's tag is a line of text, not a per-query score; "
                "compare has nothing to compare there",
            )
    texts = expand(given, compat=False).texts
    for text in texts:  # in the order given, so the first bad measure is the one named
        # GMAP: it printed AP's arithmetic mean under GMAP's name (0.1785 where trec_eval's
        # gm_map is 0.1051 on its own test files): the test and interval are of means.
        does = "compare's difference, interval and test are of"
        measure = arithmetic_measure(text, option="measure", does=does)
        if measure.is_count:
            raise InputError(
                None,
                f"measure {measure.alias or measure.text!r}: compare needs a per-query "
                "score, not a count",
            )
    return parse_measures(texts)


def run(args: argparse.Namespace) -> int:
    from goldset_tui.eval.measures import with_rel_level

    if args.samples < 1:
        raise InputError(None, "--samples must be at least 1")
    if args.rel_level is not None and args.rel_level < 1:
        raise InputError(None, "-l/--rel-level must be at least 1 (grade >= N is relevant)")
    level = args.rel_level or 1
    warn_scale(Path(args.qrels), level)  # a 1-5 store: grade 1 would count as relevant
    # Several -m (or a form standing for several, `P.5,10`): one comparison per measure, each
    # with the seed given, so each block is what `compare -m` that measure alone prints.
    measures = [with_rel_level(m, level) for m in chosen_measures(args.measure or ["nDCG@10"])]
    qrels = load_qrels(
        args.qrels, args.labeller, subtopics=any(m.needs_subtopics for m in measures)
    )
    inputs = open_runs([args.run_a, args.run_b])
    runs = read_run_paths({name: r.source for name, r in inputs.items()})
    if len(runs) != 2:
        raise InputError(None, "RUN_A and RUN_B have the same name; name them with NAME=PATH")
    check_query_sets(qrels, runs, args.qrels, {n: r.source.path for n, r in inputs.items()})
    docs = [
        compare_runs(qrels, runs, m, seed=args.seed, samples=args.samples, level=level)
        for m in measures
    ]
    if args.format == "json":
        # One measure: the object, as always; several: a list of them, in the order of -m.
        print(json.dumps(docs[0] if len(docs) == 1 else docs, indent=2))
    else:
        print("\n\n".join("\n".join(text_block(doc)) for doc in docs))
    return 0


def text_block(doc: dict) -> list[str]:
    """One comparison's text lines."""
    from goldset_tui.report.words import TESTS_DISAGREE_SHORT, ci_disagrees_with_p

    # Run names come from file names and the command line: shown, never interpreted.
    shown_a, shown_b = (
        visible(doc["a"], keep_newlines=False),
        visible(doc["b"], keep_newlines=False),
    )
    lo, hi = doc["ci95"]
    lines = [
        f"measure\t{doc['measure']}",
        f"queries\t{doc['queries']}",
        f"mean {shown_a}\t{doc['mean_a']:.4f}",
        f"mean {shown_b}\t{doc['mean_b']:.4f}",
        f"difference ({shown_a} - {shown_b})\t{doc['mean_diff']:+.4f}",
        f"95% interval ({_METHOD_WORDS[doc['ci_method']]})\t"
        + ("undefined" if lo is None or hi is None else f"[{lo:+.4f}, {hi:+.4f}]"),
        f"p-value (paired randomization)\t{p_value_text(doc['p_value'])}",
        f"wins / losses / ties ({shown_a})\t{doc['wins']} / {doc['losses']} / {doc['ties']}",
    ]
    if "discordant" in doc:
        only_a, only_b = doc["discordant"]["only_a"], doc["discordant"]["only_b"]
        lines.append(f"discordant (only {shown_a} / only {shown_b})\t{only_a} / {only_b}")
        lines.append(f"McNemar exact p\t{p_value_text(doc['mcnemar_p'])}")
    if ci_disagrees_with_p(doc):
        lines.append(f"note\t{TESTS_DISAGREE_SHORT}")
    lines.append(f"seed {doc['seed']}, {doc['samples']} samples")
    return lines
