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
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from goldset_tui.store.files import atomic_write_bytes
from goldset_tui.store.journal import Journal, replay

LLM_DIR = "llm"
Key = tuple[str, str, str]  # query_id, doc_id, input_sha256


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
