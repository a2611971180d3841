"""Screens made from what the application layer opened (``goldset_tui.app``): the one place the
commands, the home screen and `goldset serve`'s judging process turn a use case's result into a
screen, so none of them builds it its own way."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goldset_tui.app.judging import JudgingSetup
    from goldset_tui.app.review import ReviewSetup
    from goldset_tui.report.pipeline import Report
    from goldset_tui.ui.review_context import ReviewContext
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


def review_context(setup: ReviewSetup) -> ReviewContext:
    """The review screens' context on an opened review. With somewhere to put the missing pairs
    (``setup.pairs_out``), J judges them and the report is recomputed on the grades then in
    force, on the screen's source and metric."""
    from goldset_tui.ui.review_context import ReviewContext

    judge = None
    if setup.pairs_out is not None:
        from goldset_tui.ui.widgets.report_judge import judge_hook

        judge = judge_hook(
            setup.project, setup.labeller, setup.topics, setup.corpus, setup.pairs_out
        )
    context = ReviewContext(
        setup.report,
        topics=setup.topics,
        sampling_closure=setup.sampling_closure,
        sampling_source=setup.sampling_source,
        judge=judge,
        store_warnings=setup.store_warnings,
        source=setup.source,
        source_key=setup.source_key,
        sources=setup.sources,
        rebuild=setup.grades.build,
        judge_as=setup.judge_as,
        corpus=setup.corpus,
        labelled=setup.labelled,
        store=setup.store,
        out_dir=setup.out_dir,
        consensus_key=setup.consensus_key,
    )
    if setup.pairs_out is not None:

        def recompute() -> Report | None:
            # After judging: the grades in force now (the store's fresh ones), on the screen's
            # source and metric.
            if setup.project is None:
                return None
            return setup.grades.build(context.source_key, context.report.metric)[0]

        context.on_judged = recompute
    return context
