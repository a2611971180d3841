"""`goldset check`: validate a pool and summarise it before anyone spends a day judging it.

A pool from a pipe or standard input is read once, through a private file
(goldset_tui.app.checking says how); ``--input-format`` names its format, which a pipe's name
cannot.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from goldset_tui.app.checking import FORMATS
from goldset_tui.errors import InputError

if TYPE_CHECKING:
    from goldset_tui.model import GradeScale

NAME = "check"
HELP = "validate a pool and print its queries, candidates, strata, systems and overlap"
DESCRIPTION = """\
Validate a pool file (flat Parquet/CSV/TSV/JSONL, or nested JSONL with one object per query) and
print what matters before judging: queries, candidates, candidates per query (min, median, max),
strata and their sizes, the systems that were pooled and how much their results overlap, and any
prior judgments the file carries. Every problem is reported on one line naming file, line or row
and column, with exit status 2 (the same validation `goldset judge` runs).

A pool can come from a pipe or standard input (-), read once; give its --input-format then, since
a pipe has no extension to go by. A gzipped pool is decompressed.

examples:
  goldset check sample_data/pool.jsonl
  goldset check pool.parquet
  goldset check pool.jsonl --corpus corpus.jsonl
  goldset check --input-format jsonl <(zcat pool.jsonl.gz)
  zcat pool.csv.gz | goldset check --input-format csv -
  goldset check --input-format tsv pool.txt
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "pool",
        metavar="POOL",
        help="the pool file; - for standard input, or a pipe (with --input-format)",
    )
    from goldset_tui.commands._grammar import old_name

    given_as = parser.add_argument(
        "--input-format",
        dest="format",
        choices=sorted(FORMATS),
        help="the pool's format, when its name does not say it (a pipe, standard input, an odd"
        " extension); jsonl covers flat rows and nested queries alike",
    )
    parser.add_argument(
        "--corpus",
        metavar="FILE",
        help="document texts for a pool that lists ids only (BEIR corpus.jsonl, or TSV/Parquet doc_id, text)",
    )
    old_name(parser, "--format", like=given_as)
    scale = parser.add_argument(
        "--scale",
        dest="grades",
        metavar="LO-HI",
        default="0-3",
        help="the grade scale prior judgments must fit (default 0-3)",
    )
    old_name(parser, "--grades", like=scale)


def parse_grades(spec: str) -> GradeScale:
    from goldset_tui.model import GradeScale

    lo, sep, hi = spec.partition("-")
    try:
        scale = GradeScale.from_range(int(lo), int(hi)) if sep else None
    except ValueError:  # not integers, or LO > HI (no grades)
        scale = None
    if scale is None:
        raise InputError(None, f"--scale {spec!r}: expected LO-HI, e.g. 0-3")
    return scale


def run(args: argparse.Namespace) -> int:
    from goldset_tui.app.checking import check_pool, summary_lines

    pool = check_pool(
        args.pool, fmt=args.format, corpus=args.corpus, scale=parse_grades(args.grades)
    )
    for line in summary_lines(pool):
        print(line)
    return 0
