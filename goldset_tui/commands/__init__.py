"""One module per ``goldset`` subcommand, discovered by :mod:`goldset_tui.cli`.

Each module defines ``NAME`` (its module name), ``HELP``, optionally ``DESCRIPTION`` (shown by
``goldset NAME --help``, with examples), ``add_arguments(parser)`` and ``run(args) -> int``.
Modules whose name starts with ``_`` are helpers, not commands. Keep them thin: parse, call the
core, print.

``COMMANDS`` below lists every command's name and one-line help in the order ``goldset --help``
shows them. It exists for start-up time: ``goldset --help``, ``--version`` and each command then
import no command module but the one that runs (importing all of them pulls in Polars and much of
the core, a quarter of a second before any work). A test checks it against the modules' own
``NAME`` and ``HELP``. A command module missing from it still works (it is imported to be listed,
after these), so adding a command needs no shared file, only a line here to keep start-up fast.
"""

# The path a golden set takes, from the log to the decision.
COMMANDS: tuple[tuple[str, str], ...] = (
    ("demo", "try the judging screen on the bundled sample pool (a throwaway store)"),
    ("judge", "judge a pool in the terminal: keyboard-only graded judging, crash-safe"),
    ("check", "validate a pool and print its queries, candidates, strata, systems and overlap"),
    ("pool", "build a pool (union of every run's top K) from TREC run files"),
    ("qrels", "export judgments from a store as TREC qrels (or CSV/Parquet)"),
    ("classify", "label the distinct queries of a log with seed 004's six query-shape strata"),
    (
        "sample",
        "draw a seeded stratified sample of queries from LABELS (weighted, without replacement)",
    ),
    (
        "spotcheck",
        "spot-check the stratum labels by hand: agreement, confusion, and whether the errors matter",
    ),
    (
        "eval",
        "evaluate runs against qrels or a store (trec_eval-exact; nDCG@10, AP, RR, R@100 ...)",
    ),
    (
        "compare",
        "compare two runs query by query: mean difference, bootstrap interval, randomization test",
    ),
    (
        "fuse",
        "fuse runs into one (reciprocal rank fusion, CombSUM, CombMNZ) and write a TREC run",
    ),
    (
        "report",
        "stratified report: per-stratum intervals, closure checks, failure overlap, fusion headroom",
    ),
    (
        "review",
        "open the report and closure screens; drill into failing queries and judge the missing pairs",
    ),
    ("agreement", "agreement between labellers: kappas, Krippendorff's alpha, disagreements"),
    ("adjudicate", "walk the labellers' disagreements and decide them (the consensus)"),
)
