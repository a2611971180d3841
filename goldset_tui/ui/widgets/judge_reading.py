"""How the judging screen shows a document: reflowed up to a reading width, plain or rendered.

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

from rich.console import RenderableType
from textual.reactive import var

from goldset_tui.config import HIGHLIGHTS, Config, remember_highlight, remember_text_width
from goldset_tui.errors import InputError
from goldset_tui.ui.widgets import doc_text
from goldset_tui.ui.widgets import judge_parts as parts
from goldset_tui.ui.widgets.judge_host import Base


class ReadingWidth(Base):
    """Mixin for the judging screen; what it uses of the screen: ``judge_host.JudgingHost``."""

    _render_mode: str | None  # from the command line; None: the config's

    # The reading state, each redrawing what it changes when it changes (the watchers below),
    # never on mount (the screen draws the first text itself, and a new candidate's text is
    # drawn once, by refresh_view, which resets the limit without a redraw of the old one).
    text_limit: var[int] = var(parts.TEXT_PAGE, init=False)  # of a long text ("m" shows more)
    find_word: var[str | None] = var(None, init=False)  # ctrl+f's word, highlighted in every text
    highlight_choice: var[str | None] = var(None, init=False)  # set by t; None: the config's
    width_choice: var[int | None] = var(
        None, init=False
    )  # set by w or --text-width; None: the config's

    def watch_text_limit(self) -> None:
        self._redraw_text()

    def watch_find_word(self) -> None:
        self._redraw_text()

    def watch_highlight_choice(self) -> None:
        self._redraw_text()

    def watch_width_choice(self) -> None:
        self.apply_reading_width()

    def _redraw_text(self) -> None:
        if self.session is not None:
            self.text_view.update(self.document_view())

    @property
    def highlight_mode(self) -> str:
        return self.highlight_choice or self._config().highlight or HIGHLIGHTS[0]

    def _config(self) -> Config:
        config = getattr(self.app, "config", None)
        return config if isinstance(config, Config) else Config()

    @property
    def render_mode(self) -> str:
        return self._render_mode or self._config().render or doc_text.DEFAULT_RENDER

    @property
    def reading_width(self) -> int:
        if self.width_choice is not None:
            return self.width_choice
        configured = self._config().text_width
        return doc_text.DEFAULT_TEXT_WIDTH if configured is None else configured

    def apply_reading_width(self) -> None:
        # The widget's maximum, not a wrap of our own: the text reflows when the terminal resizes.
        # The doc box pads 1 column each side; the text may use the reading width itself.
        width = self.reading_width
        self.text_view.styles.max_width = width or None

    def document_view(self) -> RenderableType:
        assert self.session is not None
        return doc_text.document(
            self.session.current.text,
            self.session.query_text,
            render=self.render_mode,
            limit=self.text_limit,
            highlight=self.highlight_mode,
            find=self.find_word,  # ctrl+f's word (judge_doc_keys.py)
        )

    def action_highlight(self) -> None:
        mode = HIGHLIGHTS[(HIGHLIGHTS.index(self.highlight_mode) + 1) % len(HIGHLIGHTS)]
        self.highlight_choice = mode  # redrawn with it
        label = {
            "forms": "query terms and their word forms",
            "words": "query terms, whole words only",
            "off": "off",
        }[mode]
        config = self._config()
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

    def action_text_width(self) -> None:
        width = doc_text.next_width(self.reading_width)
        self.width_choice = width  # applied with it
        label = doc_text.width_label(width)
        if self._config().shared:  # goldset serve: the config is every web labeller's
            self.say(f"Reading width: {label} (for this session)")
            return
        try:
            path = remember_text_width(width, self._config().path)
        except InputError as exc:  # the width applies now; saying why it is not remembered
            self.say(f"Reading width: {label} (not remembered: {exc})")
            return
        _remember(self.app, text_width=width, path=path)
        self.say(f"Reading width: {label} (remembered; w changes it)")


class _Configured(Protocol):
    config: Config


def _remember(app: object, **changes: Any) -> None:
    """The app's config as just remembered (the app of ``goldset`` has one; a test's may not)."""
    if isinstance(getattr(app, "config", None), Config):
        configured = cast(_Configured, app)
        configured.config = dataclasses.replace(configured.config, **changes)
