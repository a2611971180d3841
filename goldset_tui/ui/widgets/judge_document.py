"""The judging screen's document: the candidate's text, and how it is read.

The widget owns the reading state: the text on show (and its query, whose terms are lit), how
much of a long text is shown (``text_limit``: ``m`` shows more), ctrl+f's word (``find_word``,
lit in every text), the highlighting (``t``) and the reading width (``w``, ``--text-width``).
Each is a var whose watcher redraws what it changes, never on mount: the screen shows the first
text itself, and a new candidate's text is drawn once by ``show``, which resets the limit without
a redraw of the old text. The screen's keys call the widget; what the labeller must be told goes
back to the screen as messages (the status line is the screen's), and so does a new highlighting
or width, which the screen remembers in the user's config.

The reading width is the text's maximum width, not a wrap of our own: the text reflows when the
terminal resizes. A setting not chosen here falls back to the app's config at every draw (the
config can change under a running screen: ``w`` remembered, then read again), then to the
default. Finding scrolls to the match by its place in the text (the share of characters before
it, a close guess for reflowed text, exact enough to bring the match into view); the same search
again goes to the next match.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import var

from goldset_tui.config import HIGHLIGHTS, Config
from goldset_tui.ui.widgets import doc_text
from goldset_tui.ui.widgets import judge_parts as parts
from goldset_tui.ui.widgets.doc_lines import LazyText


def app_config(app: object) -> Config:
    """The app's config (the app of ``goldset`` has one; a test's may not: the defaults)."""
    config = getattr(app, "config", None)
    return config if isinstance(config, Config) else Config()


class DocumentView(VerticalScroll):
    """The document under the candidate line; scrolls with the screen's page keys."""

    @dataclass
    class Said(Message):
        """Something to tell the labeller in the status line for ``seconds``."""

        text: str
        seconds: float = 5.0

    @dataclass
    class WidthChosen(Message):
        """``w`` chose this reading width (0: the whole width), applied already."""

        width: int

    @dataclass
    class HighlightChosen(Message):
        """``t`` chose this highlighting (one of ``config.HIGHLIGHTS``), drawn already."""

        mode: str

    text_limit: var[int] = var(parts.TEXT_PAGE, init=False)  # of a long text ("m" shows more)
    find_word: var[str | None] = var(None, init=False)  # ctrl+f's word, highlighted in every text
    highlight_choice: var[str | None] = var(None, init=False)  # set by t; None: the config's
    width_choice: var[int | None] = var(None, init=False)  # w or --text-width; None: the config's

    def __init__(self, *, render: str | None = None, text_width: int | None = None) -> None:
        super().__init__(id="doc")
        self.can_focus = False  # the screen owns up/down; the text scrolls with page keys
        self._render_mode = render  # from the command line; None: the config's
        self.set_reactive(DocumentView.width_choice, text_width)
        # Laid out and drawn only where it is seen: a long text costs what a short one does.
        self.text_view = LazyText(Text(""), id="text")
        self.found_at = -1  # where in the text the last match was (-1: start over)
        self._shown: tuple[str, str] | None = None  # (query_id, doc_id) whose text is shown
        self._text: str | None = None  # None until the first text is shown
        self._query = ""

    def compose(self) -> ComposeResult:
        yield self.text_view

    # ----- what is shown --------------------------------------------------------------------
    @property
    def shown(self) -> tuple[str, str] | None:
        """The (query_id, doc_id) whose text is on screen."""
        return self._shown

    def show(self, key: tuple[str, str], text: str, query: str) -> None:
        """Show another document from its first page, at its top, drawn once."""
        self.set_reactive(DocumentView.text_limit, parts.TEXT_PAGE)
        self.found_at = -1  # ctrl+f again starts at this text's first match
        self._text, self._query = text, query
        self.text_view.put(self.rendered())
        self._settle_scrollbar()
        self.scroll_home(animate=False, immediate=True)
        self._shown = key

    def _settle_scrollbar(self) -> None:
        """Show or hide the scrollbar now, as the layout after this text will. Left to the layout,
        a text that newly overflows is laid out and drawn at the whole width for one frame, then
        again beside the scrollbar it made appear (a page of highlighted words: twice 5 ms)."""
        region = self.scrollable_content_region
        if self.styles.overflow_y != "auto" or not region:
            return
        bar = self.styles.scrollbar_size_vertical
        width = region.width + (bar if self.show_vertical_scrollbar else 0)  # without a bar
        if self.reading_width:
            width = min(width, self.reading_width)
        height = self.text_view.rows_at(width)
        if height is None:
            return  # a rendered document: Textual measures it
        show = height > region.height
        if show != self.show_vertical_scrollbar:
            self.show_vertical_scrollbar = show
            self.vertical_scrollbar.display = show

    def rendered(self) -> RenderableType:
        assert self._text is not None
        return doc_text.document(
            self._text,
            self._query,
            render=self.render_mode,
            limit=self.text_limit,
            highlight=self.highlight_mode,
            find=self.find_word,
        )

    def watch_text_limit(self) -> None:
        self._redraw()

    def watch_find_word(self) -> None:
        self._redraw()

    def watch_highlight_choice(self) -> None:
        self._redraw()

    def watch_width_choice(self) -> None:
        self.apply_width()

    def _redraw(self) -> None:
        if self._text is not None:
            self.text_view.update(self.rendered())

    # ----- the settings, the config's unless chosen here -----------------------------------
    @property
    def highlight_mode(self) -> str:
        return self.highlight_choice or app_config(self.app).highlight or HIGHLIGHTS[0]

    @property
    def render_mode(self) -> str:
        return self._render_mode or app_config(self.app).render or doc_text.DEFAULT_RENDER

    @property
    def reading_width(self) -> int:
        if self.width_choice is not None:
            return self.width_choice
        configured = app_config(self.app).text_width
        return doc_text.DEFAULT_TEXT_WIDTH if configured is None else configured

    def apply_width(self) -> None:
        # The box pads 1 column each side; the text may use the reading width itself.
        self.text_view.styles.max_width = self.reading_width or None

    def cycle_width(self) -> None:
        width = doc_text.next_width(self.reading_width)
        self.width_choice = width  # applied with it
        self.post_message(self.WidthChosen(width))

    def cycle_highlight(self) -> None:
        mode = HIGHLIGHTS[(HIGHLIGHTS.index(self.highlight_mode) + 1) % len(HIGHLIGHTS)]
        self.highlight_choice = mode  # redrawn with it
        self.post_message(self.HighlightChosen(mode))

    # ----- reading keys: a key with nothing to do says so ----------------------------------
    def _say(self, text: str, seconds: float = 5.0) -> None:
        self.post_message(self.Said(text, seconds))

    def show_more(self) -> None:
        if self._text is None:
            return
        length = len(self._text)
        if length <= self.text_limit:
            self._say(f"The whole text is shown ({length:,} characters): m is for longer ones.")
            return
        self.text_limit += parts.TEXT_PAGE  # the text is redrawn with it

    def turn_page(self, direction: int) -> None:
        if direction < 0 and self.scroll_y <= 0:
            self._say("At the top of the text.", seconds=2)
        elif direction > 0 and self.scroll_y >= self.max_scroll_y:
            self._say("At the end of the text" + self._more_hint(), seconds=2)
        elif direction > 0:
            self.scroll_page_down(animate=False)
        else:
            self.scroll_page_up(animate=False)

    def to_edge(self, direction: int) -> None:
        if direction < 0:
            if self.scroll_y <= 0:
                self._say("At the top of the text.", seconds=2)
            self.scroll_home(animate=False)
        else:
            if self.scroll_y >= self.max_scroll_y:
                self._say("At the end of the text" + self._more_hint(), seconds=2)
            self.scroll_end(animate=False)

    def by_line(self, direction: int) -> None:
        if direction < 0 and self.scroll_y <= 0:
            self._say("At the top of the text.", seconds=2)
        elif direction > 0 and self.scroll_y >= self.max_scroll_y:
            self._say("At the end of the text" + self._more_hint(), seconds=2)
        else:
            self.scroll_to(y=self.scroll_y + direction, animate=False)

    def _more_hint(self) -> str:
        if self._text is not None and len(self._text) > self.text_limit:
            return ": m shows more of it."
        return "."

    def find_next(self, needle: str) -> None:
        """Highlight ``needle`` (any case) in the text on screen and scroll to its next match."""
        assert self._text is not None
        text = self._text[: self.text_limit]
        lowered, wanted = text.lower(), needle.lower()
        start = self.found_at + 1 if needle == self.find_word else 0
        at = lowered.find(wanted, start)
        if at < 0 and start > 0:
            at = lowered.find(wanted)  # wrap to the first
        self.find_word = needle  # highlighted: the text is redrawn with it
        if at < 0:
            self.found_at = -1
            self._say(f"Not in this text: {needle}")
            return
        self.found_at = at
        count = lowered.count(wanted)
        number = lowered.count(wanted, 0, at) + 1
        # The match's share of the text, as a share of the scrollable height; a line above it.
        height = self.virtual_size.height
        self.scroll_to(y=max(0, int(height * at / max(len(text), 1)) - 1), animate=False)
        self._say(f"{needle}: match {number} of {count} (ctrl+f Enter: the next)")
