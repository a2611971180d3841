"""The line `goldset judge` and `goldset demo` print when the judging screen closes: how much is
judged, where it is kept, how to come back and how to export it. Said on every exit, a failed one
too, so nobody has to look for the store afterwards."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

from goldset_tui.text import visible


def exit_line(command: str, screen: Any, store: Path, resume: str, export: str) -> str:
    """``goldset COMMAND: N of M judged[, K flagged], kept in STORE (RESUME; export: EXPORT)``.
    ``screen`` is the judging screen (its session may never have loaded)."""
    session = screen.session
    judged = session.judged_count if session is not None else 0
    total = session.total if session is not None else 0
    flagged = getattr(session, "flag_count", 0) if session is not None else 0
    marks = f", {flagged:,} flagged" if flagged else ""
    return (
        f"goldset {command}: {judged:,} of {total:,} judged{marks}, kept in "
        f"{visible(str(store), keep_newlines=False)} ({visible(resume, keep_newlines=False)}; "
        f"export: {visible(export, keep_newlines=False)})"
    )


def quoted(*words: object) -> str:
    """A command line as the labeller can paste it (paths with spaces quoted)."""
    return " ".join(shlex.quote(str(w)) for w in words)


def said_at_exit(screen: Any, prepared: Any, pool: str) -> None:
    """Where the judgments are kept, how to resume and export (as `goldset demo` says it)."""
    store, name = prepared.project.path, prepared.labeller
    resume = quoted("goldset", "judge", pool, "--labeller", name, "--store", store) + " resumes"
    export = quoted("goldset", "qrels", "--store", store, "--labeller", name)
    print(exit_line("judge", screen, store, resume, export), file=sys.stderr)
