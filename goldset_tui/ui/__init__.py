"""The terminal UI: thin Textual screens over the core. Only this package imports Textual.

Importing this package sets Textual's frame-rate cap before Textual itself is imported (every
screen command reaches Textual through here: ``goldset judge``, ``demo``, ``review``, the home
screen and ``goldset serve``'s judging processes). Textual draws a changed screen on a timer, at
most ``TEXTUAL_FPS`` times a second (60 unless set), and the variable is read once, when Textual is
imported: at 60 a key whose redraw misses a tick waits up to 16.7 ms for the next one, which was
most of the judging screen's tail (``bench/judge_keys.py``; README, Performance). A faster cap
costs nothing while nobody types (the timer runs only while something is waiting to be drawn);
a user's own ``TEXTUAL_FPS`` wins. Textual uses the value for nothing else that runs here (its
animations keep their own 60 fps clock; the other use is the auto-scroll of a mouse selection
dragged past the edge, whose speed per second it keeps).
"""

import os

FRAME_RATE = 240  # chosen by measurement: docs/judging.md, Performance
os.environ.setdefault("TEXTUAL_FPS", str(FRAME_RATE))
