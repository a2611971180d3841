"""`goldset` with no subcommand: the home screen, listing projects and each labeller's progress."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from goldset_tui.commands._terminal import require_terminal

    require_terminal("")  # `goldset </dev/null >out.txt` must not spin: refuse on one line
    from goldset_tui.ui.app import run_app
    from goldset_tui.ui.screens.home import HomeScreen

    return run_app(HomeScreen)
