"""goldset_tui: build and judge golden sets for retrieval evaluation.

The core (``io``, ``store``, ``eval``, ``agreement``, ``sampling``) never imports Textual,
so it can be used from a notebook; ``goldset_tui.ui`` holds the thin screens over it.
"""

__version__ = "0.1.0"
