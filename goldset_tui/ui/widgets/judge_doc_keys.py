"""The judging screen's reading keys: scroll the document by page, line or to either end, show
more of a long text, find a word in it, change the highlighting or the reading width, and go to
a candidate by its number. The document (``judge_document.DocumentView``) keeps the reading
state and acts on it; these keys call it, and this mixin answers what it posts: what to tell
the labeller, and a highlighting or width to remember.

``w`` cycles the reading width (``doc_text.READING_WIDTHS``) and remembers it in the user's config
file (``[ui] text_width``), so the next session opens the same way (under `goldset serve`, where
that file is the server account's, shared by every web labeller, it lasts for the session only);
``--text-width`` on the command line overrides it for one session, ``--render`` (or
``[ui] render``) chooses plain, markdown or rst. ``t`` cycles how the query's terms are
highlighted (their word forms too, whole words, off), remembered as ``[ui] highlight`` the
same way.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol, cast

from textual.binding import Binding

from goldset_tui.config import Config, remember_highlight, remember_text_width
from goldset_tui.errors import InputError
from goldset_tui.ui.screens.prompts import TextPrompt
from goldset_tui.ui.widgets import doc_text
from goldset_tui.ui.widgets.judge_document import DocumentView, app_config
from goldset_tui.ui.widgets.judge_host import Base

# (keys, action, description, id, tooltip); none in the footer (all under ?).
_READING = [
    ("m", "more", "more text", "more", "More of a long text"),
    ("w", "text_width", "width", "text_width", "Text width (remembered)"),
    ("t", "highlight", "highlight", "highlight", "Term highlighting (remembered)"),
    ("pagedown,space", "scroll_doc(1)", "page down", "page_down", "Scroll the text down"),
    ("pageup", "scroll_doc(-1)", "page up", "page_up", "Scroll the text up"),
    ("home", "scroll_edge(-1)", "top", "doc_top", "Top of the text"),
    ("end", "scroll_edge(1)", "end", "doc_end", "End of the text"),
    ("shift+down,ctrl+e", "scroll_line(1)", "line down", "line_down", "The text one line down"),
    ("shift+up,ctrl+y", "scroll_line(-1)", "line up", "line_up", "The text one line up"),
    ("ctrl+f", "find_in_doc", "find in text", "find_in_doc", "Find in this text"),
    ("number_sign", "goto_candidate", "go to #", "goto_candidate", "Go to a candidate by number"),
]
READING_BINDINGS = [
    Binding(keys, action, words, show=False, id=binding_id, tooltip=tip)
    for keys, action, words, binding_id, tip in _READING
]

# Actions that only read (never grade, move or open a dialog): live even while a group is graded.
READING_ACTIONS = frozenset(
    {"more", "scroll_doc", "scroll_edge", "scroll_line", "help", "text_width", "highlight"}
)

_HIGHLIGHT_LABELS = {
    "forms": "query terms and their word forms",
    "words": "query terms, whole words only",
    "off": "off",
}


class DocumentKeys(Base):
    """Mixin for the judging screen; what it uses of the screen: ``judge_host.JudgingHost``."""

    def action_more(self) -> None:
        self.doc_view.show_more()

    def action_scroll_doc(self, direction: int) -> None:
        self.doc_view.turn_page(direction)

    def action_scroll_edge(self, direction: int) -> None:
        self.doc_view.to_edge(direction)

    def action_scroll_line(self, direction: int) -> None:
        self.doc_view.by_line(direction)

    def action_text_width(self) -> None:
        self.doc_view.cycle_width()

    def action_highlight(self) -> None:
        self.doc_view.cycle_highlight()

    def on_document_view_said(self, message: DocumentView.Said) -> None:
        self.say(message.text, seconds=message.seconds)

    def on_document_view_highlight_chosen(self, message: DocumentView.HighlightChosen) -> None:
        mode = message.mode
        label = _HIGHLIGHT_LABELS[mode]
        config = app_config(self.app)
        if config.shared:
            self.say(f"Highlighting: {label} (for this session)")
            return
        try:
            path = remember_highlight(mode, config.path)
        except InputError as exc:
            self.say(f"Highlighting: {label} (not remembered: {exc})")
            return
        _remember(self.app, highlight=mode, path=path)
        self.say(f"Highlighting: {label} (remembered; t changes it)")

    def on_document_view_width_chosen(self, message: DocumentView.WidthChosen) -> None:
        width = message.width
        label = doc_text.width_label(width)
        if app_config(self.app).shared:  # goldset serve: the config is every web labeller's
            self.say(f"Reading width: {label} (for this session)")
            return
        try:
            path = remember_text_width(width, app_config(self.app).path)
        except InputError as exc:  # the width applies now; saying why it is not remembered
            self.say(f"Reading width: {label} (not remembered: {exc})")
            return
        _remember(self.app, text_width=width, path=path)
        self.say(f"Reading width: {label} (remembered; w changes it)")

    def action_find_in_doc(self) -> None:
        if self.session is None or not self.keys_live():
            return

        def find(needle: str | None) -> None:
            if not needle or self.session is None:
                return
            self.doc_view.find_next(needle)

        self.app.push_screen(
            TextPrompt(
                "Find in this text (again: the next match)", value=self.doc_view.find_word or ""
            ),
            find,
        )

    def action_goto_candidate(self) -> None:
        if self.session is None or not self.keys_live():
            return
        size = self.session.size

        def go(answer: str | None) -> None:
            if not answer or self.session is None:
                return
            text = answer.strip().lstrip("#")
            if not text.isdigit() or not 1 <= int(text) <= self.session.size:
                self.say(f"No candidate {answer.strip()} here: 1 to {self.session.size:,}.")
                return
            self.session.move(int(text) - 1 - self.session.pos)
            self.refresh_view()

        self.app.push_screen(
            TextPrompt(f"Go to candidate number (1-{size:,})", placeholder="#"), go
        )


class _Configured(Protocol):
    config: Config


def _remember(app: object, **changes: Any) -> None:
    """The app's config as just remembered (the app of ``goldset`` has one; a test's may not)."""
    if isinstance(getattr(app, "config", None), Config):
        configured = cast(_Configured, app)
        configured.config = dataclasses.replace(configured.config, **changes)
