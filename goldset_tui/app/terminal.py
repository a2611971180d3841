"""Screens need a terminal: every command that opens one checks first, and refuses on one line.

Without a terminal on stdin and stdout (``goldset </dev/null >out.txt``, a cron job, a CI step)
Textual has no keys to read and nowhere to draw, and used to spin on a core until killed. So a
screen command calls :func:`require_terminal` before it builds anything, and ``run_app`` calls it
again as the last line of defence. The refusal is an :class:`InputError`: one line, exit 2, and
it names the command a script can use instead.

Core on purpose (no Textual import): the check runs before the UI is loaded.
"""

from __future__ import annotations

import sys

from goldset_tui.errors import InputError

# What a script can run instead of each screen, for the refusal's one line.
INSTEAD = {
    "": "the other commands (goldset --help)",
    # sample_data/ is in a source checkout only; the sample pool ships with every install.
    "demo": 'goldset check "$(goldset demo --pool-path)" (the sample pool that comes with goldset)',
    "judge": "goldset qrels to export judgments (judging itself needs a person at a terminal)",
    "review": "goldset report",
    "spotcheck": "goldset spotcheck LABELS --print",
    "agreement": "goldset agreement without --screen",
    "adjudicate": "goldset agreement --format json to list the disagreements",
    "route": "goldset route without --screen (or --format json)",
    "drift": "goldset drift without --screen",
}


def has_terminal() -> bool:
    """True when both stdin and stdout are terminals (a closed or missing stream is not one)."""
    for stream in (sys.stdin, sys.stdout):
        try:
            if stream is None or not stream.isatty():
                return False
        except (AttributeError, ValueError):  # replaced by an object without isatty, or closed
            return False
    return True


def require_terminal(command: str = "") -> None:
    """Raise the one-line refusal unless stdin and stdout are both terminals."""
    if has_terminal():
        return
    name = f"goldset {command}".strip()
    instead = INSTEAD.get(command, INSTEAD[""])
    raise InputError(
        None,
        f"{name} opens a screen and needs a terminal on stdin and stdout; for scripts use {instead}",
    )
