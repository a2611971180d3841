"""The pieces of the judging screen, as ``rich.text.Text`` built from data.

Every data string goes through ``safe.literal`` (control characters become placeholders, markup is
never parsed); styling is added by spans afterwards, so a ``[bold]`` inside a document stays text.
Plain functions, so they can be tested without running the app.
"""

from __future__ import annotations

import re

from rich.text import Text

from goldset_tui.judging import Candidate, JudgingSession
from goldset_tui.ui.safe import literal

# Longer texts are shown in pages of this many characters ("m" shows more): laying out a whole
# 1 MB document would make every keypress slow, and nobody judges by reading a megabyte.
TEXT_PAGE = 20_000

# Words too common to be worth highlighting in a document.
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "me",
        "my",
        "not",
        "of",
        "on",
        "or",
        "the",
        "to",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "with",
        "without",
        "can",
    ]
)
_WORD = re.compile(r"\w+", re.UNICODE)


def query_terms(query: str) -> list[str]:
    seen: list[str] = []
    for word in _WORD.findall(query.lower()):
        if len(word) > 1 and word not in _STOPWORDS and word not in seen:
            seen.append(word)
    return seen


# Endings a query term's word forms take in a document (a light stemmer, English-only): "rotate"
# finds "Rotation", "rotated", "rotating"; "key" finds "keys" but never "keyboard" (only these
# endings may follow, not any letters: a prefix match lit up every "keyboard" for "key").
_ENDINGS = ("ations", "ation", "ions", "ion", "ing", "ings", "ed", "es", "er", "ers", "e", "s")
_STRIP = sorted(_ENDINGS, key=len, reverse=True)


def stem(word: str) -> str:
    """``word`` without its longest inflectional ending, keeping at least three letters."""
    for ending in _STRIP:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)]
    return word


def term_pattern(query: str, *, forms: bool = True) -> re.Pattern[str] | None:
    """Whole words of the query's terms; with ``forms`` (the default, ``t`` switches it) their
    word forms too: each term or its stem followed by one of the usual endings."""
    terms = query_terms(query)
    if not terms:
        return None
    alternatives = set(terms)
    if forms:
        endings = "|".join(sorted(_ENDINGS, key=len, reverse=True))
        alternatives = {f"(?:{re.escape(t)}|{re.escape(stem(t))})(?:{endings})?" for t in terms}
        # Longest first so "api_key" wins over "api"; (?!\w) keeps "key" from lighting up
        # "keyboard".
        alternation = "|".join(sorted(alternatives, key=len, reverse=True))
    else:
        alternation = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternation})(?!\w)", re.IGNORECASE)


def highlighted(text: str, query: str, *, limit: int = TEXT_PAGE) -> Text:
    shown = text if len(text) <= limit else text[:limit]
    body = literal(shown)
    pattern = term_pattern(query)
    if pattern is not None:
        body.highlight_regex(pattern, style="bold reverse")
    if len(text) > limit:
        body.append(
            f"\n\n[showing the first {limit:,} of {len(text):,} characters; press m for more]",
            style="italic dim",
        )
    return body


# The query area holds five rows (judge.tcss): at 80 columns about 300 characters after the
# header. A longer query is cut here with a mark, not by the area's edge without one.
QUERY_SHOWN = 280


def query_line(session: JudgingSession) -> Text:
    line = Text()
    line.append(f"Query {session.qi + 1:,}/{len(session.query_ids):,} ", style="bold")
    line.append_text(literal(session.query_id, keep_newlines=False, style="dim"))
    if session.stratum:
        line.append("  [")
        line.append_text(literal(session.stratum, keep_newlines=False))
        line.append("]")
    if session.is_finished() and session.repeating is None:  # a blind repeat gives nothing away
        line.append("  \u2713 finished", style="bold green")
    line.append("\n")
    query = session.query_text or ""
    shown = query[:QUERY_SHOWN] if len(query) > QUERY_SHOWN + 20 else query
    line.append_text(literal(shown, keep_newlines=False, style="bold", reading=True))
    if len(shown) < len(query):  # cut where the eye can see it, never silently
        line.append(f"\u2026 [+{len(query) - len(shown):,} characters]", style="dim")
    return line


def candidate_line(
    session: JudgingSession, candidate: Candidate, *, reveal: bool, d_hint: str = ""
) -> Text:
    """``d_hint``: what the ``d`` key does here, in words (judge_group.d_hint), after the
    near-duplicate mark; it may name another candidate, the one just graded."""
    line = Text()
    line.append(f"#{candidate.position + 1}/{session.size} ", style="bold")
    if candidate.title:
        line.append_text(literal(candidate.title, keep_newlines=False, style="bold"))
        line.append("  ")
    line.append_text(literal(candidate.doc_id, keep_newlines=False, style="dim"))
    dups = session.duplicates_of()
    if dups:
        where = ", ".join(f"#{p + 1}" for p in dups[:6]) + (" ..." if len(dups) > 6 else "")
        hint = f" ({d_hint})" if d_hint else ""
        line.append(f"  \u2248 near-duplicate of {where}{hint}", style="bold magenta")
    elif d_hint:
        line.append(f"  {d_hint}", style="bold magenta")
    # The labeller's own remarks start a line of their own: after a long title and a
    # near-duplicate hint they were cut off at 80 columns (two rows were shown; four now, with
    # a note cut to fit one row beside the flag).
    flag, skipped, note = session.current_flag, session.current_skip, session.current_note
    if flag or skipped or note:
        line.append("\n")
    if flag:
        line.append("\u2691 ", style="bold red")
        line.append_text(literal(_cut(flag, 40), keep_newlines=False, style="bold red"))
        line.append("  ")
    if skipped:
        line.append("skipped: ", style="bold yellow")
        line.append_text(literal(_cut(skipped, 60), keep_newlines=False, style="yellow"))
        line.append("  ")
    if note:
        line.append("\u270e ", style="bold")
        line.append_text(
            literal(
                _cut(note, 60),
                keep_newlines=False,
                style="italic",
            )
        )
    if reveal and candidate.systems:
        pairs = [
            f"{system} #{rank}" if rank is not None else system
            for system, rank in zip(
                candidate.systems,
                list(candidate.ranks) + [None] * len(candidate.systems),
                strict=False,
            )
        ]
        line.append("  systems: ", style="dim")
        line.append_text(literal(", ".join(pairs), keep_newlines=False))
    return line


def _cut(text: str, room: int) -> str:
    return text if len(text) <= room else text[: room - 1] + "\u2026"


def strip_line(session: JudgingSession, width: int = 78) -> Text:
    """One mark per candidate of the query: its grade, or a dot; the current one bracketed."""
    grades = session.grades_in_query()
    line = Text()
    # Very large pools per query: show a window around the cursor that fits the width.
    room = max(10, width - 4)
    start = max(0, min(session.pos - room // 2, len(grades) - room))
    if start > 0:
        line.append("\u2026")
    # Runs of one style are appended as one span: a span per mark made this line the costliest
    # part of redrawing the screen after a key.
    run, run_style = "", ""
    for i in range(start, min(len(grades), start + room)):
        mark = "\u00b7" if grades[i] is None else str(grades[i])
        style = "bold reverse" if i == session.pos else ("bold" if grades[i] is not None else "dim")
        if style != run_style and run:
            line.append(run, style=run_style)
            run = ""
        run, run_style = run + mark, style
    if run:
        line.append(run, style=run_style)
    if start + room < len(grades):
        line.append("\u2026")
    return line


def scale_line(session: JudgingSession) -> Text:
    line = Text()
    current = session.current_grade
    for grade in session.scale.grades:
        label = session.scale.labels[grade]
        style = "bold reverse" if grade == current else ""
        line.append(f" {grade} ", style="bold " + style)
        line.append_text(literal(label, keep_newlines=False, style=style))
        line.append("  ")
    return line


def _duration(minutes: float) -> str:
    if minutes >= 60:
        return f"{int(minutes // 60)}h{int(minutes % 60):02d}m"
    return f"{max(1, round(minutes))}m"


def status_line(session: JudgingSession, width: int = 0) -> Text:
    """Progress: this query, the queries finished, every candidate, then the pace.

    ``width`` is the room the line has (0: no limit). The saved indicator sits in its own cell to
    the right and is never what gives way; here the least useful parts go first (the pace, then
    the time left, then the words), so at 80 columns every count is still whole.
    """
    done_q, size_q = session.query_progress()
    done, total = session.overall_progress()
    pct = f"{100 * done / total if total else 0:.0f}%"
    queries = f"{session.finished_queries:,}/{len(session.query_ids):,}"
    pace = session.pace_per_minute()
    left = session.minutes_left() if pace is not None else None
    pace_text = f"{pace:.1f}/min" if pace is not None else ""
    pace_short = f"{pace:.0f}/min" if pace is not None and pace >= 10 else pace_text
    left_text = f"{_duration(left)} left" if left is not None else ""
    query, all_ = f"query {done_q}/{size_q}", f"all {done:,}/{total:,} {pct}"
    q = f"q {done_q}/{size_q}"
    variants = [
        (query, f"queries {queries}", all_, pace_text, left_text),
        (query, f"queries {queries}", all_, f"{pace_short} {left_text}".strip()),
        (query, f"queries {queries}", all_, left_text),
        (q, f"queries {queries}", all_, left_text),
        (q, f"queries {queries}", f"all {pct}", left_text),
        (q, f"queries {queries}", f"all {pct}"),
    ]
    chosen = variants[-1]
    for variant in variants:
        if not width or len(_joined(variant)) <= width:
            chosen = variant
            break
    # Narrower than the shortest (a long NOT SAVED beside it): whole parts go from the end, so
    # no count is ever cut to a different-looking number; the first part is cut last, marked.
    while width and len(_joined(chosen)) > width and len(chosen) > 1:
        chosen = chosen[:-1]
    line = Text(chosen[0], style="bold")
    line.append(_joined(chosen)[len(chosen[0]) :])
    if width:
        line.truncate(width, overflow="ellipsis")
    return line


# The least the progress keeps beside the saved cell (this query's count always, "q 12/40", and
# the finished queries when they fit, "q 3/4 · queries 0/3"), and the least the saved cell keeps
# ("✗ NOT SAVED: …" and a word of why) on a very narrow terminal.
PROGRESS_LEAST = 20
SAVED_LEAST = 16


def fitted_saved(saved: Text, width: int) -> Text:
    """The saved cell's text for a status bar ``width`` wide: whole when it leaves the progress
    ``PROGRESS_LEAST`` columns (both cells pad 1+1), else cut at the end with an ellipsis, so a
    long NOT SAVED reason never pushes the progress off the screen, nor itself off it."""
    limit = max(width - 4 - PROGRESS_LEAST, SAVED_LEAST)
    if saved.cell_len <= limit:
        return saved
    cut = saved.copy()
    cut.truncate(limit, overflow="ellipsis")
    return cut


def _joined(parts: tuple[str, ...]) -> str:
    return " \u00b7 ".join(p for p in parts if p)
