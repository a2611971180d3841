"""From the report into judging: a pool made of the missing pairs, judged on the judging screen into
the store, then back to the report (Escape) to see the numbers move.

When the pairs cannot be judged here (no store or labeller, or a document whose text nobody gave),
they are written to a CSV for `goldset pool`/`goldset judge` and the screen says where.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

import polars as pl
from textual.screen import Screen

from goldset_tui.report.pipeline import missing_pool

if TYPE_CHECKING:
    from goldset_tui.judging import JudgingSession
    from goldset_tui.store.project import Project
    from goldset_tui.store.writer import JudgmentWriter


def write_pairs(pairs: pl.DataFrame, path: Path) -> Path:
    from goldset_tui.store.files import atomic_write

    path = Path(path)
    # A full disk: an OSError naming the file, and no temporary file left beside it.
    atomic_write(path, lambda tmp: pairs.select("query_id", "doc_id").write_csv(tmp))
    return path


def judge_screen(
    session: JudgingSession,
    guidelines: str,
    *,
    writer: JudgmentWriter | None = None,
    warnings: list[str] | None = None,
) -> Screen:
    """The judging screen opened from the report: Escape saves and goes back to it (q goes home,
    or quits, as everywhere). ``writer`` and ``warnings`` as for the judging screen: the store's
    warnings on open are shown, and the writer's notices (a compaction that failed) on saving."""
    import inspect

    from goldset_tui.ui.screens.judge import JudgeScreen

    # CSS_PATH is resolved beside the subclass's module: point it back at the judging screen's.
    here = Path(inspect.getfile(JudgeScreen)).parent
    css = JudgeScreen.CSS_PATH
    css_paths = [css] if isinstance(css, (str, PurePath)) else list(css or [])

    class ReviewJudgeScreen(JudgeScreen):
        # Escape saves and goes back to the report (app.back flushes, then the report's callback
        # recomputes it); q goes home, or quits: the rule of every screen (ui/leaving.py).
        CSS_PATH = [str(here / p) for p in css_paths]

    # Saved as `goldset judge` saves: the ordered background writer, "saving…" until the fsync
    # returned (one path to trust, and no fsync on the key); leaving waits for it, so the report
    # recomputed on the way back sees every grade.
    return ReviewJudgeScreen(
        session,
        guidelines=guidelines,
        show_guidelines=False,
        writer=writer,
        warnings=warnings,
        background=True,
    )


def judge_hook(
    project: Project | None,
    labeller: str | None,
    topics: pl.DataFrame | None,
    corpus: pl.DataFrame | None,
    pairs_out: Path,
) -> Callable[[pl.DataFrame], Screen | str]:
    def judge(pairs: pl.DataFrame) -> Screen | str:
        pool = missing_pool(pairs, topics, corpus)
        no_text = pool.filter(pl.col("text").is_null())
        if project is None or not labeller or no_text.height:
            # The full path: a bare file name would leave the reader guessing which folder.
            try:
                where = write_pairs(pairs, Path(pairs_out).resolve())
            except OSError as exc:
                return (
                    f"could not write the {pairs.height} missing pair(s)"
                    f" to {Path(pairs_out).resolve()}: {exc.strerror or exc}"
                )
            why = (
                "no text for " + f"{no_text.height} document(s) (give --corpus)"
                if project is not None and labeller
                else "no --store/--labeller to judge into"
            )
            return f"{pairs.height} missing pair(s) written to {where} ({why})"
        from goldset_tui.app.judging import open_missing_judging, start_judging
        from goldset_tui.errors import InputError, StoreLockedError

        try:
            setup = open_missing_judging(
                project, labeller, pool.with_columns(pl.col("title").fill_null(""))
            )
            start = start_judging(setup)  # the labeller's writer: one session per labeller
        except (InputError, StoreLockedError) as exc:
            # A name `goldset judge` refuses too (a machine's), or the labeller's session open
            # elsewhere: said on the screen (the caller shows it literally), the review kept.
            return f"cannot judge the missing pairs as {labeller}: {exc}"
        return judge_screen(
            start.session(), project.guidelines, writer=start.writer, warnings=start.warnings
        )

    return judge
