"""`goldset` with no subcommand: the home screen (filled in by the judging work)."""

from __future__ import annotations


def run(args) -> int:  # noqa: ANN001 - argparse namespace
    from goldset_tui.cli import build_parser

    build_parser().print_help()
    return 0
