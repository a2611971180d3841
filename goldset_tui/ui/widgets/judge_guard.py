"""No key reaches a candidate the labeller has not seen.

While "Loading the pool..." is on screen a labeller types ahead (on a busy machine loading takes
seconds), and Textual queues those keys: handled after the session arrived, a digit became a
grade for a candidate never drawn, and ``g`` opened a dialog that typed-ahead digits graded
through. So:

- A key typed before the first candidate was put on the screen is dropped, wherever it is
  handled (here, or in the guidelines a first sitting opens): Textual stamps each key with the
  time it was read, and ``_shown_at`` is when ``_ready`` had put the candidate in its widgets.
  Dropped keys are counted; the loading line says so while loading, and once the candidate is
  drawn the screen says once how many were ignored, in one line that counts on in place (keys
  still queued behind the load may be handled before or after that frame: the guidelines'
  refresh and the app's key queue are separate tasks; a toast per key stacked, and the last
  one, with the true count, could be out of view).
- ``ready_for_keys`` is set only after the next refresh (``call_after_refresh``: the frame with
  the candidate has been drawn, not a timer). A key typed after ``_shown_at`` but handled before
  that frame waits for it and then acts (a robot, or a key pressed the instant it appeared; a
  human's type-ahead is all before ``_shown_at``).
- Every action that grades, moves or opens a dialog checks ``keys_live()``, so a key that
  arrives by another road (the palette, a dialog passing one on) cannot act early either.

A dialog over the judging screen hides the candidate, so a grade key pressed in it never grades:
in the guidelines (shown by themselves on a labeller's first sitting) it closes them and says
that nothing was graded. See docs/judging.md.
"""

from __future__ import annotations

import math

from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import var

from goldset_tui.ui.screens.help import HelpScreen
from goldset_tui.ui.widgets.judge_host import Base


class KeyGuard(Base):
    """Mixin for the judging screen (first among its bases: its ``on_key`` runs before the
    others' and stops a key early). What it uses of the screen: ``judge_host.JudgingHost``."""

    ready_for_keys: bool = False  # set once the frame with the first candidate has been drawn
    # Keys typed before the first candidate was shown; each one counted is said (watch_).
    ignored_keys: var[int] = var(0, init=False)
    _shown_at: float = math.inf  # when it was, on the clock Textual stamps keys with
    _held: list[events.Key] | None = None  # typed after that, waiting for the frame

    def keys_live(self) -> bool:
        """Whether a key may grade or move now: a session, and its first candidate drawn."""
        return self.session is not None and self.ready_for_keys

    def typed_before_shown(self, event: events.Key) -> bool:
        """A key typed before the first candidate was shown (counted: it is to be dropped)."""
        if event.time >= self._shown_at:
            return False
        self.ignored_keys += 1
        return True

    def watch_ignored_keys(self, n: int) -> None:
        if self.ready_for_keys:  # still queued behind the load: the count said grows
            self._say_ignored()
        elif self.session is None:  # still loading: the loading line says they will not count
            keys = "1 key" if n == 1 else f"{n:,} keys"
            self.query_view.update(
                Text(f"Loading the pool... ({keys} typed meanwhile: ignored, nothing graded)")
            )
        # Else the candidate is on screen, not yet drawn: the count is said once it is.

    def on_key(self, event: events.Key) -> None:
        if self.ready_for_keys and event.time >= self._shown_at:
            return
        # Neither a binding of this screen nor of the app runs for this key now. (Priority
        # bindings, ctrl+q to quit, ran before the key reached the screen.)
        event.prevent_default()
        event.stop()
        if not self.typed_before_shown(event):
            self._held = [*(self._held or []), event]  # shown but not drawn yet: it waits

    def arm_keys_after_first_draw(self) -> None:
        """Called last when the session reached the screen: keys typed from now on count, and
        act from the next refresh of the screen on top (the guidelines, on a first sitting),
        asked of that screen itself (through this one's queue the request reached the
        guidelines after their first paint and waited for a second one)."""
        self._shown_at = Message().time  # stamped as Textual stamps keys
        self.app.screen.call_after_refresh(self._first_drawn)

    def _first_drawn(self) -> None:
        if self._shown_at == math.inf:  # the load failed: nothing to grade, but q must leave
            self._shown_at = Message().time
        self.ready_for_keys = True
        if self.ignored_keys:
            self._say_ignored()
        held, self._held = self._held or [], None
        for key in held:  # in the order typed, through the app as if typed now
            self.app.post_message(events.Key(key.key, key.character))

    def _say_ignored(self) -> None:
        n = self.ignored_keys
        keys, were = ("key", "was") if n == 1 else ("keys", "were")
        text = f"{n:,} {keys} typed while loading {were} ignored: nothing graded."
        self.say(text, seconds=10)  # replaces what it said before: one line, the count now
        top = self.app.screen
        if isinstance(top, HelpScreen):  # over the status line: said in the guidelines too
            top.notice(text)
        elif top is not self:
            self.notify(text, markup=False, timeout=10)

    def help_key(self, event: events.Key) -> bool:
        """A key pressed in the guidelines that the dialog does not use: a grade key (or f, s)
        closes them (True) and grades (flags, skips) nothing; the candidate under them was not
        in view. A key typed before anything was shown does nothing at all there (a q typed
        ahead quit, a 2 graded, an Enter closed the first sitting's guidelines unread)."""
        if self.typed_before_shown(event):
            event.prevent_default()
            event.stop()
            return False
        active = self.active_bindings.get(event.key)
        if active is None or self.session is None or not active.enabled:
            return False
        action = active.binding.action
        if action.startswith("grade("):
            self.say("Guidelines closed; nothing graded: grade the candidate now that you see it.")
            return True
        if action in ("flag", "skip"):  # as a grade key: it would mark the unseen candidate
            what = "flagged" if action == "flag" else "skipped"
            self.say(f"Guidelines closed; nothing {what}: look at the candidate first.")
            return True
        return False
