"""`goldset` with no subcommand: the home screen, listing projects and each labeller's progress."""

from __future__ import annotations


def run(args) -> int:  # noqa: ANN001 - argparse namespace
    from goldset_tui.ui.app import run_app
    from goldset_tui.ui.screens.home import HomeScreen

    return run_app(HomeScreen)
