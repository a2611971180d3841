"""No key reaches a candidate the labeller has not seen.

While "Loading the pool..." is on screen a labeller types ahead (on a busy machine loading takes
seconds), and Textual queues those keys: handled after the session arrived, a digit became a
grade for a candidate never drawn, and ``g`` opened a dialog that typed-ahead digits graded
through. So keys count only once the first candidate has been drawn: ``_ready`` arms
``ready_for_keys`` after the next refresh (``call_after_refresh``, not a timer), and until then
every key that reaches the screen is dropped, counted, and the screen says once how many were
ignored. Every action that grades or moves checks ``keys_live()`` too, so a key that arrives by
another road (the palette, a dialog passing one on) cannot act early either.

A dialog over the judging screen hides the candidate, so a grade key pressed in it never grades:
in the guidelines (shown by themselves on a labeller's first sitting) it closes them and says
that nothing was graded. See docs/judging.md.
"""

from __future__ import annotations

from typing import Any

from textual import events

from goldset_tui.judging import JudgingSession


class KeyGuard:
    """Mixin for the judging screen (first among its bases: its ``on_key`` runs before the
    others' and stops a key early)."""

    session: JudgingSession | None
    ready_for_keys: bool = False  # set once the first candidate has been drawn
    ignored_keys: int = 0  # keys that reached the screen before that

    def keys_live(self) -> bool:
        """Whether a key may grade or move now: a session, and its first candidate drawn."""
        return self.session is not None and self.ready_for_keys

    def on_key(self, event: events.Key) -> None:
        if self.ready_for_keys:
            return
        # Neither a binding of this screen nor of the app runs: the key is gone. (Priority
        # bindings, ctrl+q to quit, ran before the key reached the screen.)
        event.prevent_default()
        event.stop()
        self.ignored_keys += 1

    def arm_keys_after_first_draw(self) -> None:
        """Called once the session is on the screen: keys count from the next refresh on."""
        me: Any = self
        me.call_after_refresh(self._first_drawn)

    def _first_drawn(self) -> None:
        self.ready_for_keys = True
        me: Any = self
        me.refresh_bindings()  # the footer's keys were dimmed while loading
        n = self.ignored_keys
        if n:
            keys = "key" if n == 1 else "keys"
            were = "was" if n == 1 else "were"
            me.say(f"{n:,} {keys} typed while loading {were} ignored: nothing graded.", seconds=10)

    def help_key(self, key: str) -> bool:
        """A key pressed in the guidelines that the dialog does not use: a grade key closes them
        (True) and grades nothing; the candidate under them was not in view."""
        me: Any = self
        active = me.active_bindings.get(key)
        if active is None or not active.binding.action.startswith("grade("):
            return False
        if not self.ready_for_keys:
            self.ignored_keys += 1  # typed ahead before anything was drawn: stays open
            return False
        if self.session is None or not active.enabled:
            return False
        me.say("Guidelines closed; nothing graded: grade the candidate now that you see it.")
        return True
