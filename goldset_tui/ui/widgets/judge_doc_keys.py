"""The judging screen's reading keys: scroll the document by page, line or to either end, find a
word in it, go to a candidate by its number, and say so when a key has nothing to do (``m`` on a
text shown whole, ``pgup`` at the top) instead of doing nothing silently.

Finding in the document scrolls to the match by its place in the text (the share of characters
before it, a close guess for reflowed text, exact enough to bring the match into view) and
highlights every match; the same search again goes to the next one.
"""

from __future__ import annotations

from textual.binding import Binding

from goldset_tui.ui.screens.prompts import TextPrompt
from goldset_tui.ui.widgets import judge_parts as parts
from goldset_tui.ui.widgets.judge_reading import ReadingWidth

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


class DocumentKeys(ReadingWidth):
    """Mixin for the judging screen: the keys of the reading state that ``ReadingWidth`` keeps
    (and redraws the text from); what it uses of the screen: ``judge_host.JudgingHost``."""

    found_at: int = -1  # where in the current text the last match was (-1: start over)

    def action_more(self) -> None:
        if self.session is None:
            return
        length = len(self.session.current.text)
        if length <= self.text_limit:
            self.say(f"The whole text is shown ({length:,} characters): m is for longer ones.")
            return
        self.text_limit += parts.TEXT_PAGE  # the text is redrawn with it (judge_reading.py)

    def action_scroll_doc(self, direction: int) -> None:
        doc = self.doc_view
        if direction < 0 and doc.scroll_y <= 0:
            self.say("At the top of the text.", seconds=2)
        elif direction > 0 and doc.scroll_y >= doc.max_scroll_y:
            self.say("At the end of the text" + self._more_hint(), seconds=2)
        elif direction > 0:
            doc.scroll_page_down(animate=False)
        else:
            doc.scroll_page_up(animate=False)

    def action_scroll_edge(self, direction: int) -> None:
        doc = self.doc_view
        if direction < 0:
            if doc.scroll_y <= 0:
                self.say("At the top of the text.", seconds=2)
            doc.scroll_home(animate=False)
        else:
            if doc.scroll_y >= doc.max_scroll_y:
                self.say("At the end of the text" + self._more_hint(), seconds=2)
            doc.scroll_end(animate=False)

    def action_scroll_line(self, direction: int) -> None:
        doc = self.doc_view
        if direction < 0 and doc.scroll_y <= 0:
            self.say("At the top of the text.", seconds=2)
        elif direction > 0 and doc.scroll_y >= doc.max_scroll_y:
            self.say("At the end of the text" + self._more_hint(), seconds=2)
        else:
            doc.scroll_to(y=doc.scroll_y + direction, animate=False)

    def _more_hint(self) -> str:
        if self.session is not None and len(self.session.current.text) > self.text_limit:
            return ": m shows more of it."
        return "."

    def action_find_in_doc(self) -> None:
        if self.session is None or not self.keys_live():
            return

        def find(needle: str | None) -> None:
            if not needle or self.session is None:
                return
            self.find_next(needle)

        self.app.push_screen(
            TextPrompt("Find in this text (again: the next match)", value=self.find_word or ""),
            find,
        )

    def find_next(self, needle: str) -> None:
        """Highlight ``needle`` (any case) in the text on screen and scroll to its next match."""
        assert self.session is not None
        text = self.session.current.text[: self.text_limit]
        lowered, wanted = text.lower(), needle.lower()
        start = self.found_at + 1 if needle == self.find_word else 0
        at = lowered.find(wanted, start)
        if at < 0 and start > 0:
            at = lowered.find(wanted)  # wrap to the first
        self.find_word = needle  # highlighted: the text is redrawn with it (judge_reading.py)
        if at < 0:
            self.found_at = -1
            self.say(f"Not in this text: {needle}")
            return
        self.found_at = at
        count = lowered.count(wanted)
        number = lowered.count(wanted, 0, at) + 1
        doc = self.doc_view
        # The match's share of the text, as a share of the scrollable height; a line above it.
        height = doc.virtual_size.height
        doc.scroll_to(y=max(0, int(height * at / max(len(text), 1)) - 1), animate=False)
        self.say(f"{needle}: match {number} of {count} (ctrl+f Enter: the next)")

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
