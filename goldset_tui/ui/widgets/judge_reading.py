"""How the judging screen shows a document: reflowed up to a reading width, plain or rendered.

``w`` cycles the reading width (``doc_text.READING_WIDTHS``) and remembers it in the user's config
file (``[ui] text_width``), so the next session opens the same way (under `goldset serve`, where
that file is the server account's, shared by every web labeller, it lasts for the session only);
``--text-width`` on the command line overrides it for one session, ``--render`` (or
``[ui] render``) chooses plain, markdown or rst.
"""

from __future__ import annotations

import dataclasses

from rich.console import RenderableType
from textual.widgets import Static

from goldset_tui.config import Config, remember_text_width
from goldset_tui.errors import InputError
from goldset_tui.judging import JudgingSession
from goldset_tui.ui.widgets import doc_text


class ReadingWidth:
    """Mixin for the judging screen (which provides session, say, query_one, app, ...)."""

    session: JudgingSession | None
    _text_limit: int
    _render_mode: str | None
    _text_width: int | None

    def _config(self) -> Config:
        config = getattr(self.app, "config", None)  # type: ignore[attr-defined]
        return config if isinstance(config, Config) else Config()

    @property
    def render_mode(self) -> str:
        return self._render_mode or self._config().render or doc_text.DEFAULT_RENDER

    @property
    def reading_width(self) -> int:
        if self._text_width is not None:
            return self._text_width
        configured = self._config().text_width
        return doc_text.DEFAULT_TEXT_WIDTH if configured is None else configured

    def apply_reading_width(self) -> None:
        # The widget's maximum, not a wrap of our own: the text reflows when the terminal resizes.
        # The doc box pads 1 column each side; the text may use the reading width itself.
        width = self.reading_width
        self.query_one("#text", Static).styles.max_width = width or None  # type: ignore[attr-defined]

    def document_view(self) -> RenderableType:
        assert self.session is not None
        return doc_text.document(
            self.session.current.text,
            self.session.query_text,
            render=self.render_mode,
            limit=self._text_limit,
        )

    def action_text_width(self) -> None:
        width = doc_text.next_width(self.reading_width)
        self._text_width = width
        self.apply_reading_width()
        label = doc_text.width_label(width)
        if self._config().shared:  # goldset serve: the config is every web labeller's
            self.say(f"Reading width: {label} (for this session)")  # type: ignore[attr-defined]
            return
        try:
            path = remember_text_width(width, self._config().path)
        except InputError as exc:  # the width applies now; saying why it is not remembered
            self.say(f"Reading width: {label} (not remembered: {exc})")  # type: ignore[attr-defined]
            return
        app = self.app  # type: ignore[attr-defined]
        if isinstance(getattr(app, "config", None), Config):
            app.config = dataclasses.replace(app.config, text_width=width, path=path)
        self.say(f"Reading width: {label} (remembered; w changes it)")  # type: ignore[attr-defined]
