"""`goldset` with no subcommand: the home screen, listing projects and each labeller's progress.

``goldset --store DIR`` opens it on that one store, wherever it is: every screen home reaches
(judging, history, review, agreement, closure) is then reachable for any store path."""

from __future__ import annotations

import argparse
from pathlib import Path


def run(args: argparse.Namespace) -> int:
    from goldset_tui.app.terminal import require_terminal

    store = getattr(args, "home_store", None)
    if store is not None:
        from goldset_tui.store import Project

        Project.open(Path(store))  # not a store: one line naming it, before any screen
    require_terminal("")  # `goldset </dev/null >out.txt` must not spin: refuse on one line
    from goldset_tui.ui.app import run_app
    from goldset_tui.ui.screens.home import HomeScreen

    if store is None:
        return run_app(HomeScreen)
    return run_app(lambda: HomeScreen(stores=[Path(store).resolve()]))
