"""No key reaches a candidate the labeller has not seen.

While "Loading the pool..." is on screen a labeller types ahead (on a busy machine loading takes
seconds), and Textual queues those keys: handled after the session arrived, a digit became a
grade for a candidate never drawn, and ``g`` opened a dialog that typed-ahead digits graded
through. So keys count only once the first candidate has been drawn: ``_ready`` arms
``ready_for_keys`` after the next refresh (``call_after_refresh``, not a timer), and until then
every key that reaches the screen is dropped, counted, and the screen says once how many were
ignored. A key typed before that moment but handled after it (still queued behind the load) is
dropped too: Textual stamps each key with the time it was read, and a key read before the first
draw is never a grade. Every action that grades or moves checks ``keys_live()`` too, so a key
that arrives by another road (the palette, a dialog passing one on) cannot act early either.

A dialog over the judging screen hides the candidate, so a grade key pressed in it never grades:
in the guidelines (shown by themselves on a labeller's first sitting) it closes them and says
that nothing was graded. See docs/judging.md.
"""

from __future__ import annotations

import math
from typing import Any

from textual import events
from textual.message import Message

from goldset_tui.judging import JudgingSession


class KeyGuard:
    """Mixin for the judging screen (first among its bases: its ``on_key`` runs before the
    others' and stops a key early)."""

    session: JudgingSession | None
    ready_for_keys: bool = False  # set once the first candidate has been drawn
    ignored_keys: int = 0  # keys typed before that
    _drawn_at: float = math.inf  # when, on the clock Textual stamps keys with

    def keys_live(self) -> bool:
        """Whether a key may grade or move now: a session, and its first candidate drawn."""
        return self.session is not None and self.ready_for_keys

    def typed_before_drawn(self, event: events.Key) -> bool:
        """A key typed before the first candidate was drawn (counted: it will be dropped)."""
        if self.ready_for_keys and event.time >= self._drawn_at:
            return False
        self.ignored_keys += 1
        if self.ready_for_keys:  # still queued behind the load: the count said grows
            self._say_ignored()
        return True

    def on_key(self, event: events.Key) -> None:
        if self.typed_before_drawn(event):
            # Neither a binding of this screen nor of the app runs: the key is gone. (Priority
            # bindings, ctrl+q to quit, ran before the key reached the screen.)
            event.prevent_default()
            event.stop()

    def arm_keys_after_first_draw(self) -> None:
        """Called once the session is on the screen: keys count from the next refresh on."""
        me: Any = self
        me.call_after_refresh(self._first_drawn)

    def _first_drawn(self) -> None:
        self._drawn_at = Message().time  # stamped as Textual stamps keys
        self.ready_for_keys = True
        if self.ignored_keys:
            self._say_ignored()

    def _say_ignored(self) -> None:
        n = self.ignored_keys
        keys, were = ("key", "was") if n == 1 else ("keys", "were")
        me: Any = self
        me.say(f"{n:,} {keys} typed while loading {were} ignored: nothing graded.", seconds=10)

    def help_key(self, event: events.Key) -> bool:
        """A key pressed in the guidelines that the dialog does not use: a grade key closes them
        (True) and grades nothing; the candidate under them was not in view. A key typed before
        anything was drawn does nothing at all there either (it would quit, or close them)."""
        if self.typed_before_drawn(event):
            event.prevent_default()
            event.stop()
            return False
        me: Any = self
        active = me.active_bindings.get(event.key)
        if active is None or not active.binding.action.startswith("grade("):
            return False
        if self.session is None or not active.enabled:
            return False
        me.say("Guidelines closed; nothing graded: grade the candidate now that you see it.")
        return True
