"""The judging screen's reading keys: scroll the document by page, line or to either end, find a
word in it, go to a candidate by its number, and say so when a key has nothing to do (``m`` on a
text shown whole, ``pgup`` at the top) instead of doing nothing silently.

Finding in the document scrolls to the match by its place in the text (the share of characters
before it, a close guess for reflowed text, exact enough to bring the match into view) and
highlights every match; the same search again goes to the next one.
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from goldset_tui.ui.screens.prompts import TextPrompt
from goldset_tui.ui.widgets import judge_parts as parts

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


class DocumentKeys:
    """Mixin for the judging screen (which provides session, say, keys_live, refresh_view,
    document_view, query_one, app and the rest)."""

    _find: str | None = None  # the word last searched for in documents, highlighted
    _found_at: int = -1  # where in the current text the last match was

    def _doc(self) -> VerticalScroll:
        me: Any = self
        doc: VerticalScroll = me.query_one("#doc", VerticalScroll)
        return doc

    def action_more(self) -> None:
        me: Any = self
        if me.session is None:
            return
        length = len(me.session.current.text)
        if length <= me._text_limit:
            me.say(f"The whole text is shown ({length:,} characters): m is for longer ones.")
            return
        me._text_limit += parts.TEXT_PAGE
        me.query_one("#text", Static).update(me.document_view())

    def action_scroll_doc(self, direction: int) -> None:
        me: Any = self
        doc = self._doc()
        if direction < 0 and doc.scroll_y <= 0:
            me.say("At the top of the text.", seconds=2)
        elif direction > 0 and doc.scroll_y >= doc.max_scroll_y:
            me.say("At the end of the text" + self._more_hint(), seconds=2)
        elif direction > 0:
            doc.scroll_page_down(animate=False)
        else:
            doc.scroll_page_up(animate=False)

    def action_scroll_edge(self, direction: int) -> None:
        me: Any = self
        doc = self._doc()
        if direction < 0:
            if doc.scroll_y <= 0:
                me.say("At the top of the text.", seconds=2)
            doc.scroll_home(animate=False)
        else:
            if doc.scroll_y >= doc.max_scroll_y:
                me.say("At the end of the text" + self._more_hint(), seconds=2)
            doc.scroll_end(animate=False)

    def action_scroll_line(self, direction: int) -> None:
        me: Any = self
        doc = self._doc()
        if direction < 0 and doc.scroll_y <= 0:
            me.say("At the top of the text.", seconds=2)
        elif direction > 0 and doc.scroll_y >= doc.max_scroll_y:
            me.say("At the end of the text" + self._more_hint(), seconds=2)
        else:
            doc.scroll_to(y=doc.scroll_y + direction, animate=False)

    def _more_hint(self) -> str:
        me: Any = self
        if me.session is not None and len(me.session.current.text) > me._text_limit:
            return ": m shows more of it."
        return "."

    def action_find_in_doc(self) -> None:
        me: Any = self
        if me.session is None or not me.keys_live():
            return

        def find(needle: str | None) -> None:
            if not needle or me.session is None:
                return
            self.find_next(needle)

        me.app.push_screen(
            TextPrompt("Find in this text (again: the next match)", value=self._find or ""), find
        )

    def find_next(self, needle: str) -> None:
        """Highlight ``needle`` (any case) in the text on screen and scroll to its next match."""
        me: Any = self
        text = me.session.current.text[: me._text_limit]
        lowered, wanted = text.lower(), needle.lower()
        start = self._found_at + 1 if needle == self._find else 0
        at = lowered.find(wanted, start)
        if at < 0 and start > 0:
            at = lowered.find(wanted)  # wrap to the first
        self._find = needle
        me.query_one("#text", Static).update(me.document_view())
        if at < 0:
            self._found_at = -1
            me.say(f"Not in this text: {needle}")
            return
        self._found_at = at
        count = lowered.count(wanted)
        number = lowered.count(wanted, 0, at) + 1
        doc = self._doc()
        # The match's share of the text, as a share of the scrollable height; a line above it.
        height = doc.virtual_size.height
        doc.scroll_to(y=max(0, int(height * at / max(len(text), 1)) - 1), animate=False)
        me.say(f"{needle}: match {number} of {count} (ctrl+f Enter: the next)")

    def action_goto_candidate(self) -> None:
        me: Any = self
        if me.session is None or not me.keys_live():
            return
        size = me.session.size

        def go(answer: str | None) -> None:
            if not answer or me.session is None:
                return
            text = answer.strip().lstrip("#")
            if not text.isdigit() or not 1 <= int(text) <= me.session.size:
                me.say(f"No candidate {answer.strip()} here: 1 to {me.session.size:,}.")
                return
            me.session.move(int(text) - 1 - me.session.pos)
            me.refresh_view()

        me.app.push_screen(TextPrompt(f"Go to candidate number (1-{size:,})", placeholder="#"), go)
