"""`goldset classify LOG -o LABELS`: label each distinct query of a log with a query-shape stratum."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "classify"
HELP = (
    "label each distinct query of a log with its shape: identifier, misspelling, negation, "
    "short keywords, several entities or paraphrase"
)
DESCRIPTION = """\
Normalise a query log (lowercase, trim, collapse whitespace), count the distinct queries and label
each with a stratum: exact_identifier, negation, misspelled, short_keyword, multi_entity or
paraphrase (first match wins). LOG is CSV/TSV/Parquet/JSONL with a `query` column (and optional
`count`), or plain text with one query per line (split at newlines only; a leading BOM is not
part of the first query). LABELS (.csv, .tsv or .parquet) gets the columns
query, count, stratum, spelling (the most frequent original form, which the case-sensitive rules
read). Beside it, LABELS's stem + .manifest.toml records the sha256 of the log, the vocabulary and
the rules, and the versions of goldset, Python and Polars.

--clicks COLUMN reads the log's clicks (or result count) per row: LABELS gains a zero_click
column (the query's searches with none), and classify prints the zero-click share per stratum,
the zero-click queries that recur and candidate strata grouped from the zero-click queries the
rules fit badly (--fallback, default paraphrase; --spotcheck JOURNAL adds the strata a spot-check
often corrects and the queries it corrected), with a rules function to start from (docs/drift.md).

--compare REAL_LOG SYNTHETIC_QUERIES holds a generated query set against real traffic: stratum
mix, length in tokens, share of words in the corpus vocabulary (with --vocab), identifier and
negation rates, side by side, each with its largest odds ratio (one bin against the rest), a
chi-square test of the bins and a verdict: a doubled rate is never "alike" (docs/sampling.md).

examples:
  goldset classify sample_data/query_log.csv -o labels.csv --vocab sample_data/corpus.jsonl
  goldset classify queries.txt -o labels.csv --vocab corpus.parquet
  goldset classify searches.csv -o labels.csv --vocab corpus.jsonl --clicks clicks
  goldset classify --compare query_log.csv synthetic.txt --vocab corpus.jsonl
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", type=Path, nargs="?", metavar="LOG", help="the query log")
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        help="LABELS file to write (.csv or .parquet); required unless --compare",
    )
    parser.add_argument(
        "--vocab",
        type=Path,
        help="word list (.txt) or corpus table with a `text` column; without it the misspelled rule is skipped",
    )
    parser.add_argument(
        "--manifest", type=Path, help="where to write the manifest (default: beside LABELS)"
    )
    parser.add_argument(
        "--rules",
        metavar="MODULE:FUNCTION",
        help="replace the rules: a function (spelling, vocab) -> stratum, from a module or file.py",
    )
    parser.add_argument(
        "--clicks",
        metavar="COLUMN",
        help="the log's clicks (or result-count) column: a zero_click column in LABELS, the "
        "zero-click share per stratum, recurring zero-click queries, candidate strata",
    )
    parser.add_argument(
        "--fallback",
        action="append",
        metavar="STRATUM",
        help="with --clicks: a stratum the rules fit badly (default paraphrase, their last "
        "resort); repeat it for one the spot-check often corrects",
    )
    parser.add_argument(
        "--spotcheck",
        type=Path,
        metavar="JOURNAL",
        help="with --clicks: a spot-check journal (STORE/spotcheck/NAME.jsonl); the strata it "
        "often corrects and the queries it corrected join the candidates' pool",
    )
    from goldset_tui.commands._classify_compare import add_arguments as add_compare_arguments

    add_compare_arguments(parser)  # --compare REAL_LOG SYNTHETIC_QUERIES


def run(args: argparse.Namespace) -> int:
    from goldset_tui.app.classifying import classify_to_file

    if args.compare:
        from goldset_tui.commands._classify_compare import run_compare

        return run_compare(args)
    if args.log is None or args.output is None:
        from goldset_tui.errors import InputError

        raise InputError(None, "give the query LOG and -o LABELS (or --compare REAL SYNTHETIC)")
    done = classify_to_file(
        args.log, args.output, vocab=args.vocab, rules=args.rules, manifest=args.manifest
    )
    from goldset_tui.text import visible

    print(
        f"{done.occurrences} queries in the log, {done.distinct} distinct after normalising; "
        f"wrote {visible(done.output)} and the manifest to {visible(done.manifest)}"
    )
    for row in done.strata.iter_rows(named=True):
        print(
            f"  {row['stratum']:<18} {row['distinct']:>8} distinct"
            f" {row['occurrences']:>10} occurrences {row['share']:>7.1%}"
        )
    if args.clicks:
        from goldset_tui.app.zero_clicks import zero_click_step
        from goldset_tui.drift.text import zero_click_lines
        from goldset_tui.text import visible

        found = zero_click_step(
            args.log,
            args.output,
            done.manifest,
            args.clicks,
            fallback=args.fallback or ("paraphrase",),
            rules=args.rules,
            spotcheck=args.spotcheck,
        )
        for line in zero_click_lines(found):
            print(visible(line, keep_newlines=False))
    if done.blank:
        # done.blank counts occurrences: one empty query with count 4 is 4 skipped, not 4 lines.
        print(f"note: skipped {done.blank} occurrences of blank or empty queries", file=sys.stderr)
    if done.misspelled_skipped:
        print("note: no --vocab given, so the misspelled rule was skipped", file=sys.stderr)
    return 0
