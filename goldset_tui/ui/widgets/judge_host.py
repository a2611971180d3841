"""What the judging screen's mixins need from the screen, stated as protocols.

The judging screen (``screens/judge.py``) keeps each concern in a mixin of its own: saving in
the background (``judge_saving``), the key guard (``judge_guard``), the dialogs
(``judge_dialogs``), the reading keys (``judge_doc_keys``, which call the document widget,
``judge_document``, the owner of the reading state), near-duplicate groups (``judge_group``) and
loading ahead (``judge_prefetch``). A mixin reaches the rest of the screen only through the
protocol below, so what it may touch is written down and type-checked: while type checking, each
mixin derives from ``Base``, a Textual screen that is also a ``JudgingHost``, and the screen,
which derives from every mixin, is checked by mypy to provide all of it (a member missing from
the screen leaves it abstract, and building it is an error). At run time ``Base`` is
``object``: the screen's bases are what they were.

``JudgingHost`` is what the judging screen itself provides: its session, its widgets (built once
and held, never looked up), the status bar, and the few calls every mixin makes (say, redraw, is
a key live, the saving calls). State a mixin keeps for itself (the key guard's count, a
near-duplicate run) is declared in that mixin, as reactive vars where it drives what is drawn;
the reading state is the document widget's own (``judge_document``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widgets import Static

from goldset_tui.judging import JudgingSession
from goldset_tui.ui.widgets.judge_document import DocumentView
from goldset_tui.ui.widgets.judge_status import StatusBar

if TYPE_CHECKING:
    from goldset_tui.store.writer import JudgmentWriter


class JudgingHost(Protocol):
    """What the judging screen provides to its mixins."""

    session: JudgingSession | None  # None while the pool loads
    guidelines: str
    store: Path | None  # where the judgments are kept (said under ?)

    # The widgets, built once by the screen and held.
    query_view: Static
    doc_view: DocumentView  # the text and its reading state (judge_document.py)
    status_bar: StatusBar  # the progress or a message, and the saved cell (judge_status.py)

    # What saving (judge_saving.py) reads: the writer (its notices), the clock of "✓ saved".
    writer: JudgmentWriter | None
    clock: Callable[[], datetime]
    store_warnings: list[str]  # the store's warnings on open, listed under ?

    def say(self, message: str, *, seconds: float = 5.0) -> None:
        """A routine message in the status line for ``seconds``."""
        ...

    def clear_message(self) -> None: ...

    def refresh_view(self) -> None:
        """Redraw what the session's state changes: the lines, the text when it is another."""
        ...

    # The key guard (judge_guard.py).
    def keys_live(self) -> bool: ...

    def help_key(self, event: events.Key) -> bool: ...

    # Saving (judge_saving.py): the saved cell says saved only once the grade is on disk.
    def wait_for_saves(self) -> bool: ...

    def not_saved(self, exc: Exception) -> None: ...

    def saved_text(self, message: str) -> Text: ...


if TYPE_CHECKING:

    class Base(Screen[None], JudgingHost):
        """A mixin's base while type checking: a Textual screen that is a ``JudgingHost``."""

else:
    Base = object
