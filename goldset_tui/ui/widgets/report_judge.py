"""From the report into judging: a pool made of the missing pairs, judged on the judging screen into
the store, then back to the report (Escape) to see the numbers move.

When the pairs cannot be judged here (no store or labeller, or a document whose text nobody gave),
they are written to a CSV for `goldset pool`/`goldset judge` and the screen says where.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path, PurePath

import polars as pl
from textual.binding import Binding
from textual.screen import Screen

from goldset_tui.eval.report import missing_pool


def write_pairs(pairs: pl.DataFrame, path: Path) -> Path:
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    pairs.select("query_id", "doc_id").write_csv(tmp)
    tmp.replace(path)
    return path


def judge_screen(session, guidelines: str) -> Screen:
    """The judging screen with Escape and q returning to the report (after flushing): opened from
    the report, leaving judging means going back to it, not quitting the app (ctrl+q still does)."""
    import inspect

    from goldset_tui.ui.screens.judge import JudgeScreen

    # CSS_PATH is resolved beside the subclass's module: point it back at the judging screen's.
    here = Path(inspect.getfile(JudgeScreen)).parent
    css = JudgeScreen.CSS_PATH
    css_paths = [css] if isinstance(css, (str, PurePath)) else list(css or [])

    class ReviewJudgeScreen(JudgeScreen):
        CSS_PATH = [str(here / p) for p in css_paths]
        BINDINGS = [
            Binding(
                "escape,q",
                "back_to_report",
                "back to report",
                id="judge_back_to_report",
                tooltip="Save and return to the report",
            )
        ]

        def action_back_to_report(self) -> None:
            self.flush()
            self.dismiss(None)

    return ReviewJudgeScreen(session, guidelines=guidelines, show_guidelines=False)


def judge_hook(
    project,
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
        from goldset_tui.judging import JudgingSession

        judged = project.judgments(labeller) if labeller in project.labellers() else None
        session = JudgingSession(
            pool.with_columns(pl.col("title").fill_null("")),
            labeller,
            writer=project.writer(labeller),
            judged=judged.select("query_id", "doc_id", "grade") if judged is not None else None,
            scale=project.scale,
        )
        return judge_screen(session, project.guidelines)

    return judge
