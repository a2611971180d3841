"""The application layer: the use cases that the commands, the screens and `goldset serve` share.

Each function here takes plain typed values (paths, names, numbers; never an argparse namespace)
and returns a small dataclass, so `goldset judge`, the home screen and a browser labeller open
judging through one door (:func:`goldset_tui.app.judging.open_judging`), and `goldset review`,
the home screen and the agreement screens build a review the same way
(:mod:`goldset_tui.app.review`).

The layers, checked by tests/unit/core/test_layers.py: ``commands``, ``ui`` and ``serve`` call
``app``; ``app`` calls the core (io, store, eval, agreement, judging...); ``app`` never imports
Textual, ``goldset_tui.ui`` or ``goldset_tui.commands``, so what it builds is usable without a
terminal, and a screen is made from its results by the UI (``goldset_tui.ui.opening``).
"""
