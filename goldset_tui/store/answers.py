"""A model's answers, kept in the store one by one: the crash-safe log and the cache of a run.

``STORE/llm/cache/<key>.jsonl`` holds every answer a model gave under one prompt, ``<key>`` a
digest of (the prompt template's sha256, the model asked for). One JSON line per answer:
the pair, the sha256 of the exact text sent (``input_sha256``: the rendered prompt, so an
edited document or query is asked again), the answer's text as the model gave it, its tokens,
the model and fingerprint the provider reported, the request id and the time. The raw text is
kept, not the grade read from it, so reading an answer (``goldset_tui.machine.answer``) can be
done again without asking again.

Crash model: the file is a :class:`goldset_tui.store.journal.Journal`: each answer is written and
fdatasynced before it counts, the lock keeps a second run with the same prompt and model out
while one runs, and a line cut short by a kill is dropped on the next open (it was never
counted). So a killed run keeps every answer it counted, and the next run asks only for the rest.
The API key is never in a line: nothing here receives it.

``STORE/llm/prompts/<sha256[:16]>.txt`` keeps each prompt template used, so the sha256 in the
manifest can always be read back as text.

``STORE/llm/runs/<labeller>.json`` is there while a `judge --machine` run's answers may not be
stored as its labels yet (below): a killed run's answers are said to wait, never silently missing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goldset_tui.store.files import atomic_write_bytes
from goldset_tui.store.journal import Journal, replay

if TYPE_CHECKING:
    from goldset_tui.model import GradeScale

LLM_DIR = "llm"
Key = tuple[str, str, str]  # query_id, doc_id, input_sha256
# A labeller's grades in force by pair, None when the store has no such labeller.
StoredGrades = Callable[[str], "dict[tuple[str, str], int] | None"]


def cache_path(store: str | Path, prompt_sha256: str, model: str) -> Path:
    key = hashlib.sha256(f"{prompt_sha256}\0{model}".encode()).hexdigest()[:24]
    return Path(store) / LLM_DIR / "cache" / f"{key}.jsonl"


def prompt_path(store: str | Path, prompt_sha256: str) -> Path:
    return Path(store) / LLM_DIR / "prompts" / f"{prompt_sha256[:16]}.txt"


def keep_prompt(store: str | Path, template: str, prompt_sha256: str) -> Path:
    """Write the template under its digest (once: the same digest is the same text)."""
    path = prompt_path(store, prompt_sha256)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, template.encode("utf-8"))
    return path


def input_digest(system: str, prompt: str) -> str:
    return hashlib.sha256(f"{system}\0{prompt}".encode()).hexdigest()


def read_answers(path: Path) -> tuple[dict[Key, dict[str, Any]], list[str]]:
    """The answers in ``path`` by (query_id, doc_id, input_sha256), a later line winning; and
    warnings (a torn last line dropped)."""
    records, warnings = replay(path)
    out: dict[Key, dict[str, Any]] = {}
    for record in records:
        key = (
            str(record.get("query_id")),
            str(record.get("doc_id")),
            str(record.get("input_sha256")),
        )
        out[key] = record
    return out, warnings


class AnswerLog:
    """Append answers to the cache, each durable when :meth:`add` returns. Holds the file's
    lock (a second run on the same prompt and model is refused: StoreLockedError)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._journal = Journal(path)
        self.warnings = list(self._journal.warnings)

    def add(self, record: dict[str, Any]) -> None:
        self._journal.append(record)

    def close(self) -> None:
        self._journal.close()

    def __enter__(self) -> AnswerLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- a machine judge's run in progress ------------------------------------------------------------
# `goldset judge --machine` stores its labels once its asking ends; until then its answers are in
# the answer log only. A run killed (or stopped by an error that also stopped the storing) leaves
# answers the labeller's labels do not hold, and a reader of the store (`goldset qrels`) would show
# fewer labels than the progress line counted, without a word. So a run says, before its first
# request, which labeller the log's answers are for and the command that stores them
# (``STORE/llm/runs/<labeller>.json``), and removes that once the labels are stored; a reader
# that finds it while no run holds the log counts what the labels miss and says so.
RUNS_DIR = "runs"


def run_marker_path(store: str | Path, labeller: str) -> Path:
    from goldset_tui.store.files import safe_name

    return Path(store) / LLM_DIR / RUNS_DIR / f"{safe_name(labeller)}.json"


def mark_run(store: str | Path, labeller: str, log: Path, command: str) -> None:
    """Before the first request: ``labeller``'s labels are to come from ``log``'s answers."""
    import json

    path = run_marker_path(store, labeller)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"labeller": labeller, "log": log.name, "command": command}
    atomic_write_bytes(path, json.dumps(record, ensure_ascii=False).encode("utf-8"))


def clear_run(store: str | Path, labeller: str) -> None:
    """Once the labels are stored: nothing is left to say (a marker left by a kill here says
    nothing either, as the labels then hold every answer)."""
    run_marker_path(store, labeller).unlink(missing_ok=True)


def unstored_answers(store: Path, scale: GradeScale, stored: StoredGrades) -> dict[str, str]:
    """Per labeller, the sentence saying how many graded answers of an interrupted machine run
    its labels do not hold yet, and the command that stores them. ``stored(labeller)``: the
    labeller's grades in force (None: not a labeller yet). A log a live run holds is left out:
    that run stores its answers itself."""
    from goldset_tui.errors import InputError
    from goldset_tui.io.values import loads_json
    from goldset_tui.machine.answer import read_answer
    from goldset_tui.store.journal import is_locked
    from goldset_tui.text import visible

    folder = Path(store) / LLM_DIR / RUNS_DIR
    if not folder.is_dir():
        return {}
    said: dict[str, str] = {}
    for marker in sorted(folder.glob("*.json")):
        try:
            info = loads_json(marker.read_text(encoding="utf-8"))
            labeller, log = str(info["labeller"]), marker.parent.parent / "cache" / info["log"]
            command = str(info["command"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not one goldset wrote: nothing to say about it
        if not log.is_file() or is_locked(log):
            continue
        try:
            answers = read_answers(log)[0]
        except (OSError, InputError):
            continue  # a log that cannot be read: the run reading it says so, not every reader
        graded: dict[tuple[str, str], int] = {}
        for (query_id, doc_id, _), record in answers.items():
            grade = read_answer(str(record.get("text", "")), scale).grade
            if grade is not None:
                graded[(query_id, doc_id)] = grade
        have = stored(labeller) or {}
        missing = sum(1 for pair, grade in graded.items() if have.get(pair) != grade)
        if missing:
            said[labeller] = (
                f"{missing} answer{'s' * (missing != 1)} of an interrupted `goldset judge "
                f"--machine` run {'are' if missing != 1 else 'is'} not in "
                f"{visible(labeller, keep_newlines=False)!r}'s labels yet (kept in "
                f"{visible(str(log), keep_newlines=False)}); run the same command again to store "
                f"them, nothing is asked twice: {visible(command, keep_newlines=False)}"
            )
    return said
