"""One module per ``goldset`` subcommand, discovered by :mod:`goldset_tui.cli`.

Each module defines ``NAME``, ``HELP``, optionally ``DESCRIPTION`` (shown by
``goldset NAME --help``, with examples),
``add_arguments(parser)`` and ``run(args) -> int``. Modules whose name starts with ``_`` are
helpers, not commands. Keep them thin: parse, call the core, print.
"""
