"""`goldset judge` (and `demo`) when the labeller's session is still open elsewhere: name the
process and offer to end it (store/takeover.py), rather than telling the labeller to find and
kill it. In a terminal the labeller answers y/N on stdin; ``--take-over`` answers yes without
asking (a script, or a labeller who knows); otherwise the one-line refusal names the process and
the flag."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from goldset_tui.errors import StoreLockedError
from goldset_tui.store.takeover import end_session, session_holder
from goldset_tui.text import visible

if TYPE_CHECKING:
    from goldset_tui.app.judging import JudgingSetup


def interactive_answer() -> Callable[[str], str] | None:
    """``input`` when a person can answer on stdin, else None."""
    try:
        return input if sys.stdin is not None and sys.stdin.isatty() else None
    except (AttributeError, ValueError):
        return None


def take_over_if_held(
    journal: Path,
    labeller: str,
    command: str,
    *,
    take_over: bool,
    ask: Callable[[str], str] | None,
) -> int | None:
    """Free ``journal`` if a session of this machine holds it and the labeller agrees (or gave
    ``--take-over``); the pid ended, None when nothing held it. StoreLockedError otherwise, one
    line naming the process and ``command --take-over``."""
    held = session_holder(journal)
    if held is None:
        return None
    pid, who = held
    name = visible(labeller, keep_newlines=False)
    if not take_over:
        refusal = StoreLockedError(
            f"{journal}: {name}'s session is open in {who}; to end it (it saves and closes "
            f"first) and judge here: {command} --take-over"
        )
        if ask is None:
            raise refusal
        try:
            answer = ask(
                f"goldset: {name}'s session is still open in {who} (a dropped connection?).\n"
                "End it (it saves and closes first) and open it here? [y/N] "
            )
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            raise refusal
    end_session(journal, pid)
    print(f"goldset: ended {who}; its judgments are saved. Opening here.", file=sys.stderr)
    return pid


def take_over_session(setup: JudgingSetup, again: str, *, take_over: bool) -> None:
    """The labeller's session still open elsewhere: offer to end it. ``again`` is the command
    line that judges here, said in the refusal with ``--take-over`` after it."""
    from goldset_tui.store.staging import naming_the_merge

    journal = setup.project.labeller_paths(setup.labeller)[0]
    merging = naming_the_merge(setup.project.path, journal, StoreLockedError(""))
    if str(merging):  # a merge holds it: it must finish, never be ended
        raise merging
    take_over_if_held(journal, setup.labeller, again, take_over=take_over, ask=interactive_answer())
