"""Screens made from what the application layer opened (``goldset_tui.app``): the one place the
commands, the home screen and `goldset serve`'s judging process turn a use case's result into a
screen, so none of them builds it its own way."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goldset_tui.app.judging import JudgingSetup
    from goldset_tui.ui.screens.judge import JudgeScreen


def judge_screen(
    setup: JudgingSetup,
    *,
    reveal: bool = False,
    repeat: float = 0.0,
    seed: int | None = None,
    order: str = "blind",
    render: str | None = None,
    text_width: int | None = None,
    only_new: bool = False,
) -> JudgeScreen:
    """The judging screen on an opened setup; the writer opens here (lock: one per labeller)."""
    from goldset_tui.app.judging import start_judging
    from goldset_tui.ui.screens.judge import JudgeScreen
    from goldset_tui.ui.widgets.marks import Marks

    start = start_judging(setup, repeat=repeat, seed=seed, order=order, only_new=only_new)
    project = setup.project
    screen = JudgeScreen(
        start.session,
        guidelines=project.guidelines,
        show_guidelines=start.first_sitting,
        reveal=reveal,
        warnings=start.warnings,
        writer=start.writer,
        render=render,
        text_width=text_width,
        background=True,  # the grade's fsync off the key's path, "saving…" until it returns
    )
    screen.marks = Marks(start.new_pairs, start.shared_queries, start.team)  # +new and shared
    screen.store = project.path  # said under ? (where the judgments are kept)
    return screen
